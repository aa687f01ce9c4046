/**
 * The longest delay a Node timer holds, in ms (2^31 − 1, about 24.8 days). A longer one does not wait: Node
 * fires it after 1 ms, so every wait, timeout and retry delay must stay at or below this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
