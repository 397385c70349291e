/**
 * The entry of a local worker process (`tau run --workers N`): it plans the
 * coordinator's run from the descriptor it is sent, runs the attempts it is
 * given, and streams their outcomes and its provider events back over IPC
 * (one batch per turn of the event loop). It writes nothing; it exits when
 * the coordinator goes away.
 */
import { UnitHost } from "./host.ts";
import { type FromWorker, Outbox, type ToWorker, watchLoad } from "./protocol.ts";

const outbox = new Outbox<FromWorker>((messages) => process.send?.(messages));

// Units arrive right behind the descriptor, while the run is still being planned here: they wait for it.
let host: Promise<UnitHost | null> = Promise.resolve(null);
const attempts = new Map<number, AbortController>();

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case "open":
      host = UnitHost.open(message.descriptor, {
        onLlmEvent: (event) => outbox.post({ type: "llm", event }),
      }).then(
        (opened) => {
          outbox.post({ type: "ready" });
          return opened;
        },
        (error: unknown) => {
          // The coordinator gives this process's units to the others and disconnects.
          outbox.post({ type: "refused", message: error instanceof Error ? error.message : String(error) });
          return null;
        },
      );
      return;
    case "run": {
      const controller = new AbortController();
      attempts.set(message.id, controller);
      try {
        const opened = await host;
        if (!opened) return;
        // The attempt's provider events were posted before its outcome, so they arrive first.
        outbox.post({
          type: "outcome",
          id: message.id,
          outcome: await opened.runLocal(message.unit, controller.signal),
        });
      } finally {
        attempts.delete(message.id);
      }
      return;
    }
    case "abort":
      attempts.get(message.id)?.abort(new Error("abandoned by the coordinator"));
      return;
    case "rate_limited":
      (await host)?.rateLimited(message.model);
      return;
    default: {
      const never: never = message;
      throw new Error(`unknown message ${String(never)}`);
    }
  }
}

// How busy this process is: the coordinator gives fewer attempts to the busier of its processes.
watchLoad((utilization) => outbox.post({ type: "load", utilization }));

process.on("message", (messages: ToWorker[]) => {
  for (const message of messages) void handle(message);
});
// The coordinator's end of the channel closed (it finished, or died): nothing here is worth keeping.
process.on("disconnect", () => process.exit(0));
