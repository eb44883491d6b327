/**
 * A load-test agent process: owns a {@link ClientPool} and obeys the coordinator, one JSON
 * request per line on stdin, one JSON answer per line on stdout (see `agent_protocol.ts`).
 * Run by `loadtest.ts`, never by hand. It exits when stdin closes.
 */
import { ClientPool } from "./client_pool.ts";
import { now } from "./clock.ts";
import { readLines } from "./lines.ts";
import type { AgentRequest, AgentResponse } from "./agent_protocol.ts";

const pool = new ClientPool();
const encoder = new TextEncoder();
const stdout = Deno.stdout.writable.getWriter();

function answer(response: AgentResponse): Promise<void> {
  return stdout.write(encoder.encode(JSON.stringify(response) + "\n"));
}

async function handle(request: AgentRequest): Promise<unknown> {
  switch (request.op) {
    case "clock":
      return now();
    case "connect":
      return await pool.connect(request.url, request.scenes, request.concurrency);
    case "run":
      return await pool.run(request.plan);
    case "measure":
      return pool.measure(request.sends);
    case "close":
      await pool.close();
      return null;
  }
}

for await (const line of readLines(Deno.stdin.readable)) {
  if (line.trim() === "") continue;
  const request = JSON.parse(line) as AgentRequest;
  // Requests run concurrently (a clock probe must not wait behind a run); each answers by id.
  handle(request).then(
    (result) => answer({ id: request.id, ok: true, result }),
    (error) =>
      answer({
        id: request.id,
        ok: false,
        code: "agent_failed",
        message: error instanceof Error ? error.stack ?? error.message : String(error),
      }),
  );
}
await pool.close();
