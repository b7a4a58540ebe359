/**
 * A stand-in for a kernel connection and its comm, with only the members the channel uses: unit tests
 * have no Jupyter server. Messages the kernel would send are `deliver`ed; what the frontend sent is
 * in `comm.opened` (the hello) and `comm.sent`. Also what a kernel sends, for the tests to deliver.
 */
import { Signal } from '@lumino/signaling';

export function kernelStub() {
  const comm = {
    isDisposed: false,
    commsOverSubshells: 'disabled',
    opened: [] as unknown[],
    sent: [] as unknown[],
    onMsg: (_msg: unknown) => undefined as unknown,
    onClose: () => undefined as unknown,
    open(data: unknown) {
      this.opened.push(data);
    },
    send(data: unknown) {
      this.sent.push(data);
    },
    dispose() {
      this.isDisposed = true;
    }
  };
  const kernel = {
    isDisposed: false,
    supportsSubshells: false,
    info: Promise.resolve({}),
    statusChanged: new Signal<unknown, string>({}),
    disposed: new Signal<unknown, void>({}),
    registerCommTarget: () => undefined,
    createComm: () => comm
  };
  return {
    kernel,
    comm,
    deliver: (data: unknown) => comm.onMsg({ content: { data } })
  };
}

/** The page info a hello carries. */
export const page = async () => ({
  origin: 'http://x',
  base_url: '/',
  theme: 'light' as const,
  server_extension: true
});

/** A waiting elicitation as the kernel lists it in a snapshot's inbox. */
export const ELICITATION = {
  id: 'e1',
  kind: 'elicitation',
  connection: 'demo',
  title: 'Your name?',
  created: 1,
  payload: {
    message: 'Your name?',
    requested_schema: { properties: { name: { type: 'string' } } }
  }
};

/** A `snapshot` message with these inbox items and connections. */
export function snapshot(inbox: unknown[] = [], connections: unknown[] = []) {
  return { type: 'snapshot', connections, configured: [], inbox };
}

/** Let the channel's awaits (kernel info, page info) run. */
export function settle(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 0));
}
