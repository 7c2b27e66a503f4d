-- Background sweeps (`POST /sweeps`, `concord sweep`): each compares the active memories that
-- existed when it started (node ids up to `until_id`, optionally of one scope, label or since a
-- time) with their candidates, in node id order. `checkpoint` is the last node compared, so a
-- sweep goes on after a restart where it stopped; whoever runs it holds a lease
-- (`lease_owner`, `lease_until`) that it renews at each checkpoint. `resumed_at` and
-- `resumed_compared` are where the current run began, for its rate.
create table sweeps (
    sweep_id         uuid primary key,
    scope            text,
    label            text,
    since            timestamptz,
    until_id         uuid,
    status           text not null check (status in ('running', 'done', 'cancelled', 'failed')),
    total            bigint not null,
    compared         bigint not null default 0,
    queued           bigint not null default 0,
    checkpoint       uuid,
    lease_owner      text,
    lease_until      timestamptz,
    resumed_at       timestamptz not null,
    resumed_compared bigint not null default 0,
    error            text,
    created_by       text,
    created_at       timestamptz not null,
    updated_at       timestamptz not null,
    finished_at      timestamptz
);
-- One sweep runs at a time: a second would compare the same pairs again.
create unique index sweeps_one_running on sweeps (status) where status = 'running';
create index sweeps_newest on sweeps (created_at desc, sweep_id desc);
