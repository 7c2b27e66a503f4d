-- A source's credibility is learned within a scope: one tenant's verdicts about `web:forum`
-- neither raise nor lower it for another, and no tenant reads another's counters. A verdict
-- counts in the scope of the memory that bears the source. The counters learned so far were
-- shared by every scope: each scope with memories of that source keeps a copy, and a source
-- no memory bears any more keeps its counters in `default`.
create table sources_in_scope (
    scope        text not null,
    source       text not null,
    upheld       bigint not null default 0,
    contradicted bigint not null default 0,
    created_at   timestamptz not null,
    updated_at   timestamptz not null,
    primary key (scope, source)
);

insert into sources_in_scope (scope, source, upheld, contradicted, created_at, updated_at)
select distinct n.scope, s.source, s.upheld, s.contradicted, s.created_at, s.updated_at
from sources s join nodes n on n.source = s.source;
insert into sources_in_scope (scope, source, upheld, contradicted, created_at, updated_at)
select 'default', s.source, s.upheld, s.contradicted, s.created_at, s.updated_at
from sources s
where not exists (select 1 from sources_in_scope x where x.source = s.source);

drop table sources;
alter table sources_in_scope rename to sources;
