/**
 * Music tracks on a single node, over real HTTP: a host uploads one (its id the SHA-256 of its
 * bytes), a guest without the key or with a wrong one is refused, bytes that are no track and a
 * body over 20 MB are refused with their codes, and the track is served with Range (first bytes,
 * a suffix, 416 past the end), immutable caching and an ETag, also after a restart.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { TestClient } from "../../testing/test_client.ts";
import { startTestServer } from "../../testing/test_server.ts";
import { clickTrack } from "../../testing/track_wav.ts";
import type { ServerMessage } from "../../shared/protocol.ts";

type HostFrame = Extract<ServerMessage, { t: "host" }>;

const MB = 1024 * 1024;

async function upload(
  url: string,
  body: BodyInit,
  key?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  return { status: response.status, json: await response.json() };
}

const codeOf = (json: Record<string, unknown>) => (json.error as { code: string }).code;

Deno.test("tracks: a host uploads, guests may not, and tracks are served with Range", async (t) => {
  const server = await startTestServer({ trackUploads: { perSecond: 100, burst: 100 } });
  const scene = "music-party-1";
  const wav = clickTrack({ seconds: 3, clicksAt: [0.5, 1, 1.5] });
  const id = createHash("sha256").update(wav).digest("hex");
  const tracks = `${server.url}/s/${scene}/tracks`;
  const { client: host } = await TestClient.join(server.url, scene);
  const { client: guest } = await TestClient.join(server.url, scene);
  try {
    const key = ((await host.waitFor((m) => m.t === "host" && !!m.key)) as HostFrame).key!;

    await t.step("a host's upload answers its hash, url, type and size", async () => {
      const { status, json } = await upload(tracks, wav, key, { "content-type": "text/plain" });
      assert.equal(status, 201, JSON.stringify(json));
      assert.deepEqual(json, {
        id,
        url: `/s/${scene}/tracks/${id}`,
        mime: "audio/wav",
        bytes: wav.length,
      });
      const again = await upload(tracks, wav, key);
      assert.equal(again.status, 201, "the same track again is the same track");
      assert.equal(again.json.id, id);
    });

    await t.step("a guest is refused: no key 401, a key not the scene's 403", async () => {
      const none = await upload(tracks, wav);
      assert.equal(none.status, 401);
      assert.equal(codeOf(none.json), "host_key_required");
      const wrong = await upload(tracks, wav, "A".repeat(32));
      assert.equal(wrong.status, 403);
      assert.equal(codeOf(wrong.json), "forbidden");
      const nowhere = await upload(`${server.url}/s/no-such-scene/tracks`, wav, key);
      assert.equal(nowhere.status, 404, "no such scene");
      assert.ok(guest.messages.length > 0);
    });

    await t.step("bytes that are no track are refused whatever their name or type", async () => {
      const text = new TextEncoder().encode("<html>not a song</html>".repeat(20));
      const refused = await upload(tracks, new File([text], "song.mp3"), key, {
        "content-type": "audio/mpeg",
      });
      assert.equal(refused.status, 415);
      assert.equal(codeOf(refused.json), "track_type");
      // A WAV's header on an HTML page's bytes is refused too (no fmt chunk).
      const forged = new Uint8Array([...new TextEncoder().encode("RIFF\0\0\0\0WAVEdata"), ...text]);
      assert.equal((await upload(tracks, forged, key)).status, 415);
    });

    await t.step("more than 20 MB is refused, declared or streamed", async () => {
      const big = new Uint8Array(20 * MB + 1);
      big.set(wav.subarray(0, 44));
      const declared = await upload(tracks, big, key);
      assert.equal(declared.status, 413);
      assert.equal(codeOf(declared.json), "track_too_large");
      // Chunked, with no length said up front: refused once it passes 20 MB.
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > 21 * MB) return controller.close();
          controller.enqueue(new Uint8Array(MB));
          sent += MB;
        },
      });
      // The server answers 413 and stops reading; the client, still sending, may see the
      // connection closed under it instead of the answer.
      const streamed = await upload(tracks, stream, key).catch((e: Error) => e);
      if (streamed instanceof Error) {
        assert.match(String(streamed.cause ?? streamed), /connection closed|reset|broken pipe/i);
      } else {
        assert.equal(streamed.status, 413);
      }
      assert.ok(sent <= 22 * MB);
      // Nothing was stored: the host's next upload still fits (and the server still answers).
      assert.equal((await upload(tracks, wav, key)).status, 201);
    });

    const url = `${tracks}/${id}`;

    await t.step("served whole with immutable caching and an ETag", async () => {
      const response = await fetch(url);
      const body = new Uint8Array(await response.arrayBuffer());
      assert.equal(response.status, 200);
      assert.deepEqual(body, wav);
      assert.equal(response.headers.get("content-type"), "audio/wav");
      assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.equal(response.headers.get("etag"), `"${id}"`);
      assert.equal(response.headers.get("accept-ranges"), "bytes");
      const cached = await fetch(url, { headers: { "if-none-match": `"${id}"` } });
      await cached.body?.cancel();
      assert.equal(cached.status, 304);
    });

    await t.step("Range: first bytes, a suffix, an open end; 416 past the end", async () => {
      const first = await fetch(url, { headers: { range: "bytes=0-99" } });
      assert.equal(first.status, 206);
      assert.equal(first.headers.get("content-range"), `bytes 0-99/${wav.length}`);
      assert.deepEqual(new Uint8Array(await first.arrayBuffer()), wav.subarray(0, 100));
      const suffix = await fetch(url, { headers: { range: "bytes=-100" } });
      assert.equal(suffix.status, 206);
      assert.equal(
        suffix.headers.get("content-range"),
        `bytes ${wav.length - 100}-${wav.length - 1}/${wav.length}`,
      );
      assert.deepEqual(new Uint8Array(await suffix.arrayBuffer()), wav.subarray(wav.length - 100));
      const open = await fetch(url, { headers: { range: "bytes=1000-" } });
      assert.equal(open.status, 206);
      assert.deepEqual(new Uint8Array(await open.arrayBuffer()), wav.subarray(1000));
      const past = await fetch(url, { headers: { range: `bytes=${wav.length}-` } });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get("content-range"), `bytes */${wav.length}`);
      assert.equal(codeOf(await past.json()), "range_not_satisfiable");
    });

    await t.step("an unknown track, or another scene's, is not found", async () => {
      const unknown = await fetch(`${tracks}/${"0".repeat(64)}`);
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
      const elsewhere = await fetch(`${server.url}/s/other-scene/tracks/${id}`);
      assert.equal(elsewhere.status, 404);
      await elsewhere.body?.cancel();
    });

    await t.step("the track is kept across a restart", async () => {
      await host.close();
      await guest.close();
      await server.shutdown();
      await server.start();
      const response = await fetch(url, { headers: { range: "bytes=44-" } });
      assert.equal(response.status, 206);
      assert.deepEqual(new Uint8Array(await response.arrayBuffer()), wav.subarray(44));
    });
  } finally {
    await host.close();
    await guest.close();
    await server.close();
  }
});
