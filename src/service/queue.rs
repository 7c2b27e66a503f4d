//! Manual queueing of a conflict found elsewhere (`POST /conflicts`): both nodes must exist,
//! and the recommendation is computed exactly as for detected conflicts.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::access::Caller;
use crate::domain::conflict::{CONFLICT_TYPES, Conflict, Detection, NewConflict};
use crate::domain::node::MAX_BODY_BYTES;
use crate::domain::time;
use crate::domain::validate::{Errors, check_text};
use crate::service::detect::{Probe, recommend_for};
use crate::service::idempotency::{self, Claim};
use crate::service::{Error, Result, Services, replies};
use crate::store::StoreError;

/// Raw fields of `POST /conflicts`.
pub struct ManualConflict {
    pub old_node_id: Uuid,
    pub new_node_id: Option<Uuid>,
    pub new_content: Option<String>,
    pub conflict_type: Option<String>,
    pub note: Option<String>,
}

impl ManualConflict {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut e = Errors::default();
        match (&self.new_node_id, &self.new_content) {
            (None, None) => e.add(
                "/new_node_id",
                "one of new_node_id or new_content is required",
            ),
            (Some(_), Some(_)) => {
                e.add("/new_content", "give new_node_id or new_content, not both")
            }
            (Some(id), None) if *id == self.old_node_id => {
                e.add("/new_node_id", "must differ from old_node_id")
            }
            (None, Some(c)) if c.trim().is_empty() || c.len() > MAX_BODY_BYTES => {
                e.add("/new_content", "must be 1 character to 1 MiB")
            }
            _ => {}
        }
        if let Some(t) = &self.conflict_type
            && !CONFLICT_TYPES.contains(&t.as_str())
        {
            e.add(
                "/conflict_type",
                format!("must be one of {}", CONFLICT_TYPES.join(", ")),
            );
        }
        if self
            .note
            .as_ref()
            .is_some_and(|n| n.chars().count() > 10_000)
        {
            e.add("/note", "must be at most 10000 characters");
        }
        for (pointer, text) in [("/new_content", &self.new_content), ("/note", &self.note)] {
            if let Some(t) = text {
                check_text(&mut e, pointer, t);
            }
        }
        e.finish(())
    }
}

/// Queues the conflict; returns the existing pending one (and `false`) for a known pair. With
/// a claimed key its reply ([`replies::conflict_queued`]) commits with it.
pub async fn queue(
    svc: &Services,
    caller: &Caller,
    m: ManualConflict,
    claim: Option<&Claim>,
) -> Result<(Conflict, bool)> {
    let (conflict, created) = queue_in(svc, caller, m, claim).await?;
    if created {
        svc.notifier.bump();
    }
    Ok((conflict, created))
}

async fn queue_in(
    svc: &Services,
    caller: &Caller,
    m: ManualConflict,
    claim: Option<&Claim>,
) -> Result<(Conflict, bool)> {
    m.validate().map_err(Error::Invalid)?;
    let store = &*svc.store;
    // A node of a scope the caller's key does not hold is answered as one that does not exist.
    let seen = |pointer: &'static str, id: Uuid| async move {
        match store.get_node(id).await {
            Ok(n) if caller.holds(&n.scope) => Ok(n),
            Ok(_) | Err(StoreError::NotFound(_)) => Err(Error::Invalid(vec![FieldError::new(
                pointer,
                "no node with this id exists",
            )])),
            Err(other) => Err(other.into()),
        }
    };
    let old = seen("/old_node_id", m.old_node_id).await?;
    let new = match m.new_node_id {
        Some(id) => Some(seen("/new_node_id", id).await?),
        None => None,
    };
    let now = time::now();
    let probe = match &new {
        Some(n) => Probe::of_stored(n, None),
        None => Probe {
            id: None,
            title: &old.title,
            body: m.new_content.as_deref().unwrap_or_default(),
            memory_type: &old.memory_type,
            scope: &old.scope,
            labels: &[],
            confidence: old.confidence,
            observed_at: now,
            source: None,
            embedding: None,
            provenance: None,
        },
    };
    let table = svc.detector.credibility(store).await?;
    let recommendation = recommend_for(&old, &probe, &table);
    let conflict = NewConflict {
        id: Uuid::now_v7(),
        old_node_id: old.id,
        new_node_id: m.new_node_id,
        new_content: m.new_content,
        conflict_type: m
            .conflict_type
            .unwrap_or_else(|| "direct-contradiction".into()),
        detection: Detection::manual(),
        recommendation,
        note: m.note,
        created_at: now,
        key: caller.writer(),
    };
    let queued = match claim {
        None => store.queue_conflict(conflict).await,
        Some(c) => match store.queue_conflict_keyed(conflict).await {
            Ok(pending) => idempotency::commit(c, pending, replies::conflict_queued).await,
            Err(e) => Err(e),
        },
    };
    queued.map_err(|e| match e {
        // Deleted since it was read.
        StoreError::NotFound(_) => Error::Invalid(vec![FieldError::new(
            "/old_node_id",
            "no node with this id exists",
        )]),
        other => other.into(),
    })
}
