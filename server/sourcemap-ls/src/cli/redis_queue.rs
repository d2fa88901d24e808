//! [`EventQueue`] on a Redis Streams consumer group (Redis's documentation, "Redis Streams" and the commands
//! `XGROUP CREATE … MKSTREAM`, `XREADGROUP … STREAMS key >`, `XAUTOCLAIM`, `XPENDING`, `XADD`, `XACK`): the group
//! is created from the stream's start when it does not exist and joined when it does; new entries are read with
//! `>`; entries pending longer than `claim_idle` with another consumer are claimed (`XAUTOCLAIM`, which counts the
//! delivery); an entry is acknowledged only after its output is added.

use std::time::Duration;

use redis::{Connection, Value};

use super::event_queue::{Delivery, EventQueue, Written};

/// Where a worker reads and writes.
pub(super) struct RedisStreams {
    pub(super) url: String,
    pub(super) input: String,
    pub(super) group: String,
    pub(super) consumer: String,
    pub(super) output: String,
    pub(super) dead_letter: String,
    pub(super) claim_idle: Duration,
}

/// A connection to Redis, made again after an error.
pub(super) struct RedisQueue {
    at: RedisStreams,
    connection: Option<Connection>,
    /// Where the next `XAUTOCLAIM` scan of the pending entries starts.
    cursor: String,
    /// When pending entries were last looked for and none was found.
    last_claim: Option<std::time::Instant>,
}

fn said(e: redis::RedisError) -> String {
    format!("redis: {e}")
}

impl RedisQueue {
    /// Connects and creates the group (from the stream's start) unless it exists.
    pub(super) fn open(at: RedisStreams) -> Result<RedisQueue, String> {
        let mut queue = RedisQueue {
            at,
            connection: None,
            cursor: "0-0".into(),
            last_claim: None,
        };
        queue.connection()?;
        Ok(queue)
    }

    fn connection(&mut self) -> Result<&mut Connection, String> {
        if self.connection.is_none() {
            let client = redis::Client::open(self.at.url.as_str()).map_err(said)?;
            let mut c = client.get_connection().map_err(said)?;
            let created: Result<Value, _> = redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(&self.at.input)
                .arg(&self.at.group)
                .arg("0")
                .arg("MKSTREAM")
                .query(&mut c);
            if let Err(e) = created {
                // BUSYGROUP: the group exists, and is joined.
                if e.code() != Some("BUSYGROUP") {
                    return Err(said(e));
                }
            }
            self.connection = Some(c);
        }
        Ok(self.connection.as_mut().expect("just connected"))
    }

    /// Runs `f` on the connection; an error drops it (the next call connects again).
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut Connection, &RedisStreams) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        self.connection()?;
        let (c, at) = (self.connection.as_mut().expect("connected"), &self.at);
        let r = f(c, at);
        if r.is_err() {
            self.connection = None;
        }
        r.map_err(said)
    }

    /// The entries pending with other consumers longer than `claim_idle`, claimed for this one.
    fn claim(&mut self, max: usize) -> Result<Vec<Delivery>, String> {
        let cursor = self.cursor.clone();
        let reply: Value = self.with(|c, at| {
            redis::cmd("XAUTOCLAIM")
                .arg(&at.input)
                .arg(&at.group)
                .arg(&at.consumer)
                .arg(at.claim_idle.as_millis() as u64)
                .arg(&cursor)
                .arg("COUNT")
                .arg(max)
                .query(c)
        })?;
        let Value::Array(parts) = reply else {
            return Ok(Vec::new());
        };
        let mut parts = parts.into_iter();
        if let Some(next) = parts.next().and_then(|v| text(&v)) {
            self.cursor = next;
        }
        let entries = parts.next().map(entries).unwrap_or_default();
        let mut out = Vec::new();
        for (id, event) in entries {
            let deliveries = self.deliveries(&id)?;
            out.push(Delivery {
                id,
                event,
                deliveries,
            });
        }
        Ok(out)
    }

    /// How many times entry `id` was delivered (`XPENDING key group id id 1`).
    fn deliveries(&mut self, id: &str) -> Result<u64, String> {
        let reply: Value = self.with(|c, at| {
            redis::cmd("XPENDING")
                .arg(&at.input)
                .arg(&at.group)
                .arg(id)
                .arg(id)
                .arg(1)
                .query(c)
        })?;
        let count = match reply {
            Value::Array(rows) => rows.into_iter().next().and_then(|row| match row {
                Value::Array(fields) => fields.get(3).and_then(number),
                _ => None,
            }),
            _ => None,
        };
        Ok(count.unwrap_or(1))
    }
}

impl EventQueue for RedisQueue {
    fn next(&mut self, max: usize, block: Duration) -> Result<Vec<Delivery>, String> {
        // Pending entries are looked for at most every half `claim_idle` (an entry is claimable only once idle that
        // long), and again at once while there are some: a look per batch was a round trip per few events.
        let due = self
            .last_claim
            .is_none_or(|t| t.elapsed() >= self.at.claim_idle / 2);
        if due {
            let claimed = self.claim(max)?;
            if !claimed.is_empty() {
                self.last_claim = None;
                return Ok(claimed);
            }
            self.last_claim = Some(std::time::Instant::now());
        }
        let reply: Value = self.with(|c, at| {
            redis::cmd("XREADGROUP")
                .arg("GROUP")
                .arg(&at.group)
                .arg(&at.consumer)
                .arg("COUNT")
                .arg(max)
                .arg("BLOCK")
                .arg(block.as_millis() as u64)
                .arg("STREAMS")
                .arg(&at.input)
                .arg(">")
                .query(c)
        })?;
        // [[stream, [[id, [field, value, …]], …]]], or nil when nothing came.
        let Value::Array(streams) = reply else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for s in streams {
            let Value::Array(mut pair) = s else { continue };
            if pair.len() < 2 {
                continue;
            }
            for (id, event) in entries(pair.swap_remove(1)) {
                out.push(Delivery {
                    id,
                    event,
                    deliveries: 1,
                });
            }
        }
        Ok(out)
    }

    fn write(&mut self, out: &[Written<'_>]) -> Result<(), String> {
        if out.is_empty() {
            return Ok(());
        }
        // One round trip for the batch; an error reply from any command fails the whole (not acknowledged).
        self.with(|c, at| {
            let mut pipe = redis::pipe();
            for w in out {
                match w {
                    Written::Event { source_id, event } => {
                        pipe.cmd("XADD")
                            .arg(&at.output)
                            .arg("*")
                            .arg("event")
                            .arg(*event)
                            .arg("source_id")
                            .arg(*source_id);
                    }
                    Written::DeadLetter {
                        source_id,
                        event,
                        reason,
                    } => {
                        let cmd = pipe
                            .cmd("XADD")
                            .arg(&at.dead_letter)
                            .arg("*")
                            .arg("source_id")
                            .arg(*source_id)
                            .arg("reason")
                            .arg(*reason);
                        if let Some(event) = event {
                            cmd.arg("event").arg(*event);
                        }
                    }
                }
            }
            pipe.query::<Vec<Value>>(c)
        })
        .map(drop)
    }

    fn ack(&mut self, ids: &[String]) -> Result<(), String> {
        if ids.is_empty() {
            return Ok(());
        }
        self.with(|c, at| {
            redis::cmd("XACK")
                .arg(&at.input)
                .arg(&at.group)
                .arg(ids)
                .query::<Value>(c)
        })
        .map(drop)
    }

    fn pending(&mut self) -> Result<u64, String> {
        let reply: Value = self.with(|c, at| {
            redis::cmd("XPENDING")
                .arg(&at.input)
                .arg(&at.group)
                .query(c)
        })?;
        Ok(match reply {
            Value::Array(summary) => summary.first().and_then(number).unwrap_or(0),
            _ => 0,
        })
    }
}

/// `[[id, [field, value, …]], …]` as (id, the `event` field); a deleted entry (nil fields) has no event.
fn entries(v: Value) -> Vec<(String, Option<Vec<u8>>)> {
    let Value::Array(rows) = v else {
        return Vec::new();
    };
    rows.into_iter()
        .filter_map(|row| {
            let Value::Array(row) = row else { return None };
            let id = text(row.first()?)?;
            let event = match row.get(1) {
                Some(Value::Array(fields)) => fields
                    .chunks(2)
                    .find(|kv| text(&kv[0]).as_deref() == Some("event"))
                    .and_then(|kv| match kv.get(1) {
                        Some(Value::BulkString(b)) => Some(b.clone()),
                        _ => None,
                    }),
                _ => None,
            };
            Some((id, event))
        })
        .collect()
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

fn number(v: &Value) -> Option<u64> {
    match v {
        Value::Int(n) => u64::try_from(*n).ok(),
        other => text(other)?.parse().ok(),
    }
}
