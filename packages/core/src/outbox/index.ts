export { type AllowedHosts, parseAllowedHostList } from "./hosts.ts";
export {
  DELIVERY_METHODS,
  type Delivery,
  type DeliveryMethod,
  type DeliveryRequest,
  type DeliveryStatus,
  deleteDeliveries,
  getDelivery,
  listDeliveries,
  type QueuedDelivery,
  queueDelivery,
  redeliver,
} from "./queue.ts";
export { noteQueuedDeliveries, onDeliveriesQueued, signalQueuedDeliveries } from "./signal.ts";
export { signHmacSha1Hex, signHmacSha256Hex } from "./signatures.ts";
export { createOutboxTable, OUTBOX_TABLE } from "./table.ts";
export { type OutboxWorker, type OutboxWorkerOptions, startOutboxWorker } from "./worker.ts";
