/**
 * Where the app's data come from: the `tau view --web` server (JSON over
 * HTTP, and server-sent events when a run changes), or a static export
 * (payload scripts next to the page). Both give the same payloads.
 */
import {
  type RunData,
  type RunSummary,
  type RunUpdate,
  STATIC_CALLBACK,
  staticKeys,
  staticPaths,
  type TrajectoryData,
} from "../wire.ts";

declare global {
  interface Window {
    TAU_VIEWER_MODE?: "server" | "static";
    [STATIC_CALLBACK]?: (key: string, data: unknown) => void;
  }
}

/** The app's view of its data. */
export interface DataSource {
  readonly mode: "server" | "static";
  runs(): Promise<RunSummary[]>;
  run(id: string): Promise<RunData>;
  trajectory(id: string, serial: number): Promise<TrajectoryData>;
  /** Calls `listener` when a run changes (never, for a static export); returns the unsubscribe. */
  subscribe(listener: (update: RunUpdate) => void): () => void;
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${(await response.text()).trim()}`);
  return (await response.json()) as T;
}

function serverSource(): DataSource {
  const listeners = new Set<(update: RunUpdate) => void>();
  let events: EventSource | null = null;
  return {
    mode: "server",
    runs: () => getJson("api/runs"),
    run: (id) => getJson(`api/runs/${encodeURIComponent(id)}`),
    trajectory: (id, serial) => getJson(`api/runs/${encodeURIComponent(id)}/sims/${serial}`),
    subscribe(listener) {
      listeners.add(listener);
      if (!events) {
        events = new EventSource("api/events");
        events.addEventListener("run", (event) => {
          const update = JSON.parse((event as MessageEvent<string>).data) as RunUpdate;
          for (const each of listeners) each(update);
        });
      }
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

function staticSource(): DataSource {
  const waiting = new Map<string, { resolve: (data: unknown) => void; reject: (error: Error) => void }>();
  const loaded = new Map<string, Promise<unknown>>();
  window[STATIC_CALLBACK] = (key, data) => {
    waiting.get(key)?.resolve(data);
    waiting.delete(key);
  };
  const load = <T>(key: string, path: string): Promise<T> => {
    let promise = loaded.get(key);
    if (!promise) {
      promise = new Promise((resolve, reject) => {
        waiting.set(key, { resolve, reject });
        const script = document.createElement("script");
        script.src = path;
        script.onerror = () => {
          waiting.delete(key);
          loaded.delete(key);
          reject(new Error(`${path} is missing from this export`));
        };
        script.onload = () => script.remove();
        document.head.append(script);
      });
      loaded.set(key, promise);
    }
    return promise as Promise<T>;
  };
  return {
    mode: "static",
    runs: () => load(staticKeys.runs(), staticPaths.runs()),
    run: (id) => load(staticKeys.run(id), staticPaths.run(id)),
    trajectory: (id, serial) => load(staticKeys.trajectory(id, serial), staticPaths.trajectory(id, serial)),
    subscribe: () => () => {},
  };
}

/** The data source this page was served with. */
export function createDataSource(): DataSource {
  return window.TAU_VIEWER_MODE === "static" ? staticSource() : serverSource();
}
