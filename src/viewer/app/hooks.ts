/** Loading data into pages, and following live runs. */
import { useEffect, useState } from "preact/hooks";
import type { DataSource } from "./data.ts";

/** A value being loaded: the last good value stays while a newer one loads. */
export interface Resource<T> {
  value: T | undefined;
  error: string | null;
  loading: boolean;
}

/** Loads `load()` whenever `key` changes; errors are kept as text. */
export function useResource<T>(load: () => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<Resource<T>>({ value: undefined, error: null, loading: true });
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => current && setState({ value, error: null, loading: false }),
      (error: unknown) =>
        current && setState((previous) => ({ ...previous, error: (error as Error).message, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [key]);
  return state;
}

/** Least time between two reloads of a live page. */
const RELOAD_MS = 1500;

/**
 * A counter that goes up when a run changes on the server (any run when
 * `runId` is null), at most once per {@link RELOAD_MS}: put it in a
 * resource's key to reload it.
 */
export function useLiveVersion(source: DataSource, runId: string | null): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const bump = () => {
      timer = null;
      last = Date.now();
      setVersion((value) => value + 1);
    };
    const unsubscribe = source.subscribe((update) => {
      if (runId !== null && update.id !== runId) return;
      if (timer) return;
      timer = setTimeout(bump, Math.max(0, RELOAD_MS - (Date.now() - last)));
    });
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [source, runId]);
  return version;
}
