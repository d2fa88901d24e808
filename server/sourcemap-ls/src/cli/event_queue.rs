//! The stream side of `sourcemap-ls worker` ([`EventQueue`]): what the worker needs of a consumer group, so that the
//! engine that coordinates workers is the queue's, never ours. Redis Streams is the one here (`redis_queue.rs`).
//!
//! A Kafka consumer group maps onto it: the topic's partitions are the stream, a consumer group the group; `next` is
//! a poll; `ack` commits the offsets of a batch once every entry of it has been written (a batch is acknowledged in
//! input order, so the committed offset never passes an entry not yet written); a consumer that dies has its
//! partitions rebalanced to the living ones, which read again from the last committed offset (Kafka's counterpart of
//! claiming pending entries); the delivery count, which Kafka does not keep, is kept in a header written back with
//! a retried entry, or in a small table by offset. No broker is reachable from this project's machines, so only the
//! Redis side is built and tested.

use std::time::Duration;

/// One entry delivered to this consumer.
#[derive(Debug, Clone)]
pub(super) struct Delivery {
    /// The entry's ID in the input (the output's `source_id`).
    pub(super) id: String,
    /// The event's JSON (the entry's `event` field); `None` when the entry has none.
    pub(super) event: Option<Vec<u8>>,
    /// How many times the entry was delivered, this time included.
    pub(super) deliveries: u64,
}

/// What the worker writes for an input entry `source_id`.
pub(super) enum Written<'a> {
    /// The symbolicated event, to the output.
    Event { source_id: &'a str, event: &'a [u8] },
    /// The entry to the dead letters, with why and its event as it came (if any).
    DeadLetter {
        source_id: &'a str,
        event: Option<&'a [u8]>,
        reason: &'a str,
    },
}

/// See the module documentation. Errors are the queue's words; the worker says them and tries again.
pub(super) trait EventQueue {
    /// Up to `max` entries: first those another consumer left pending too long (claimed), else new ones, waiting up
    /// to `block` for them.
    fn next(&mut self, max: usize, block: Duration) -> Result<Vec<Delivery>, String>;
    /// Writes a batch's outputs and dead letters, all or an error (then nothing of the batch is acknowledged, and
    /// whatever was written is written again when its entries come back: delivery is at least once).
    fn write(&mut self, out: &[Written<'_>]) -> Result<(), String>;
    /// Acknowledges input entries once their output (or dead letter) is written.
    fn ack(&mut self, ids: &[String]) -> Result<(), String>;
    /// How many entries the group has delivered and not had acknowledged (all consumers).
    fn pending(&mut self) -> Result<u64, String>;
}
