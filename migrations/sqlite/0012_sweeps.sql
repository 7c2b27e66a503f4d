-- Background sweeps (`POST /sweeps`, `concord sweep`): each compares the active memories that
-- existed when it started (node ids up to `until_id`, optionally of one scope, label or since a
-- time) with their candidates, in node id order. `checkpoint` is the last node compared, so a
-- sweep goes on after a restart where it stopped; whoever runs it holds a lease
-- (`lease_owner`, `lease_until`) that it renews at each checkpoint. `resumed_at` and
-- `resumed_compared` are where the current run began, for its rate.
create table sweeps (
    sweep_id         text primary key,
    scope            text,
    label            text,
    since            text,
    until_id         text,
    status           text not null check (status in ('running', 'done', 'cancelled', 'failed')),
    total            integer not null,
    compared         integer not null default 0,
    queued           integer not null default 0,
    checkpoint       text,
    lease_owner      text,
    lease_until      text,
    resumed_at       text not null,
    resumed_compared integer not null default 0,
    error            text,
    created_by       text,
    created_at       text not null,
    updated_at       text not null,
    finished_at      text
);
-- One sweep runs at a time: a second would compare the same pairs again.
create unique index sweeps_one_running on sweeps (status) where status = 'running';
create index sweeps_newest on sweeps (created_at desc, sweep_id desc);
