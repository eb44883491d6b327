/**
 * The `ws` engine touches one private part of npm `ws`: the receiver that `stopReading` halts for
 * abusers. If the pinned `ws` changes it, this fails (instead of the server silently parsing an
 * abuser's backlog again).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { type WebSocket as WsSocket, WebSocketServer } from "ws";
import { wsReceiver } from "../../server/ws/ws_node.ts";

Deno.test("the pinned ws still has the receiver internals stopReading clears", async () => {
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer();
  const accepted = Promise.withResolvers<WsSocket>();
  server.on("upgrade", (req, tcp, head) => {
    wss.handleUpgrade(req, tcp, head, (ws) => accepted.resolve(ws));
  });
  const listening = Promise.withResolvers<number>();
  server.listen(0, "127.0.0.1", () => {
    listening.resolve((server.address() as { port: number }).port);
  });
  const client = new WebSocket(`ws://127.0.0.1:${await listening.promise}/`);
  const ws = await accepted.promise;
  try {
    const receiver = wsReceiver(ws);
    if (receiver instanceof Error) {
      assert.fail(
        `npm ws changed the internals server/ws/ws_node.ts relies on: ${receiver.message}`,
      );
    }
    assert.equal(receiver._loop, false, "an idle receiver is not in its parse loop");
    assert.deepEqual(receiver._buffers, []);
    assert.equal(receiver._bufferedBytes, 0);
  } finally {
    const closed = new Promise((r) => client.onclose = r);
    ws.terminate();
    await closed;
    wss.close();
    await new Promise((r) => server.close(r));
  }
});

Deno.test("a ws whose receiver changed shape is reported, not used", () => {
  const changed = { _receiver: { _loop: false, _buffers: new Map(), _bufferedBytes: 0 } };
  const found = wsReceiver(changed as unknown as WsSocket);
  assert.ok(found instanceof Error);
  assert.match(found.message, /_buffers/);
  assert.ok(wsReceiver({} as WsSocket) instanceof Error);
});
