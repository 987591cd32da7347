import { EventEmitter } from "node:events";

// A queued delivery can be sent only once its transaction commits, which the code that queued it
// cannot see from inside. Whoever commits calls signalQueuedDeliveries() afterwards (an API once
// each response is sent, the forge's git transport after a push), which wakes this process's
// outbox workers; their polling picks up whatever a signal misses and what other processes queued.

const signal = new EventEmitter();
let unsignaled = false;

/** Calls `listener` on each signal; answers the function that stops it. */
export function onDeliveriesQueued(listener: () => void): () => void {
  signal.on("queued", listener);
  return () => signal.off("queued", listener);
}

/** Notes that deliveries were queued, for the next signal. */
export function noteQueuedDeliveries(): void {
  unsignaled = true;
}

/** Wakes the workers when deliveries were queued since the last call; cheap when none were. */
export function signalQueuedDeliveries(): void {
  if (!unsignaled) return;
  unsignaled = false;
  signal.emit("queued");
}
