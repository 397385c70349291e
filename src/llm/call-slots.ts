/**
 * A value for one model call that the SDK model's `fetch` needs (the answer of a probe or a
 * replay, the place to keep the raw reply), carried through the SDK as a header of that call:
 * the AI SDK hands a call's `headers` to its `fetch`, which takes the value and removes the
 * header before anything is sent.
 *
 * Not an AsyncLocalStorage: once one is used, Node 20 runs a hook on every promise of the process,
 * which at a thousand simulations in flight cost about a sixth of the runner's CPU.
 */
export class CallSlots<T> {
  private readonly values = new Map<string, T>();
  private next = 0;

  /** `header` must be lower case: the SDKs lower-case header names before their fetch sees them. */
  constructor(private readonly header: string) {}

  /** Runs `call` with `headers` plus the header naming `value`, which it holds until the call ends. */
  async with<R>(
    value: T,
    headers: Record<string, string | undefined> | undefined,
    call: (headers: Record<string, string | undefined>) => PromiseLike<R>,
  ): Promise<R> {
    const token = String(++this.next);
    this.values.set(token, value);
    try {
      return await call({ ...headers, [this.header]: token });
    } finally {
      this.values.delete(token);
    }
  }

  /** The value of the call `init` belongs to (undefined: none), and `init` without the header. */
  take(init: RequestInit | undefined): { value: T | undefined; init: RequestInit | undefined } {
    const headers = init?.headers;
    if (headers instanceof Headers) {
      const token = headers.get(this.header);
      if (token === null) return { value: undefined, init };
      const rest = new Headers(headers);
      rest.delete(this.header);
      return { value: this.values.get(token), init: { ...init, headers: rest } };
    }
    if (Array.isArray(headers))
      return headers.some(([name]) => name?.toLowerCase() === this.header)
        ? this.take({ ...init, headers: new Headers(headers) })
        : { value: undefined, init };
    if (headers === undefined || headers === null || !(this.header in headers))
      return { value: undefined, init };
    const { [this.header]: token, ...rest } = headers as Record<string, string>;
    return { value: this.values.get(token!), init: { ...init, headers: rest } };
  }
}
