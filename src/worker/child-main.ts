/**
 * The entry of a local worker process (`tau run --workers N`): it plans the
 * coordinator's run from the descriptor it is sent, runs the attempts it is
 * given, and streams their outcomes and its provider events back over IPC.
 * It writes nothing; it exits when the coordinator goes away.
 */
import type { LlmEvent } from "../llm/events.ts";
import { UnitHost } from "./host.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";

const send = (message: FromWorker) => process.send?.(message);

// Provider events go in batches: one IPC message per turn of the event loop, not per call.
let pending: LlmEvent[] = [];
let flushScheduled = false;
function flushEvents(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  send({ type: "llm", events: pending });
  pending = [];
}
function onLlmEvent(event: LlmEvent): void {
  pending.push(event);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushEvents);
  }
}

let host: UnitHost | null = null;
const attempts = new Map<number, AbortController>();

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case "open":
      try {
        host = await UnitHost.open(message.descriptor, { onLlmEvent });
        send({ type: "ready" });
      } catch (error) {
        send({ type: "refused", message: error instanceof Error ? error.message : String(error) });
      }
      return;
    case "run": {
      const controller = new AbortController();
      attempts.set(message.id, controller);
      try {
        if (!host) throw new Error("a unit arrived before the run was opened");
        const outcome = await host.run(message.unit, controller.signal);
        flushEvents();
        send({ type: "outcome", id: message.id, outcome });
      } finally {
        attempts.delete(message.id);
      }
      return;
    }
    case "abort":
      attempts.get(message.id)?.abort(new Error("abandoned by the coordinator"));
      return;
    case "rate_limited":
      host?.rateLimited(message.model);
      return;
    default: {
      const never: never = message;
      throw new Error(`unknown message ${String(never)}`);
    }
  }
}

process.on("message", (message: ToWorker) => {
  void handle(message);
});
// The coordinator's end of the channel closed (it finished, or died): nothing here is worth keeping.
process.on("disconnect", () => process.exit(0));
