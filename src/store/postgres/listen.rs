//! LISTEN/NOTIFY: a conflict committed by any instance sharing the database wakes the waiters
//! of every instance. A lost listener connection reconnects; notifications missed meanwhile
//! are harmless because waiters re-read from their cursor, so the listener simply wakes
//! everyone after reconnecting.

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;

use crate::store::StoreResult;
use crate::store::notify::Notifier;

/// The channel `pg_notify` wakes: its payload is the seq of the conflict that changed.
pub const EVENTS_CHANNEL: &str = "concord_events";

pub async fn listen(pool: &PgPool, notifier: Arc<Notifier>) -> StoreResult<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(EVENTS_CHANNEL).await?;
    let pool = pool.clone();
    tokio::spawn(async move {
        loop {
            match listener.recv().await {
                Ok(_) => notifier.bump(),
                Err(e) => {
                    if pool.is_closed() || notifier.is_shutting_down() {
                        return;
                    }
                    tracing::warn!(error = %e, "event listener lost its connection; reconnecting");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    // Whatever was missed meanwhile is found by re-reading from the cursors.
                    notifier.bump();
                }
            }
        }
    });
    Ok(())
}
