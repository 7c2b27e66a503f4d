-- Keys hold scopes, and every read shows a key only what its scopes hold, through
-- `concord_in_scopes(scopes, patterns)`: whether every line of `scopes` (one scope, or a report's
-- scopes) is held by one of the `patterns` (one per line: a scope, or a prefix ending in `*`);
-- null patterns hold every scope, null scopes hide nothing. The same rule as
-- `domain::access::in_scopes`, which SQLite calls. A stored report records the scopes of the
-- memories it drew on (or, with none, the asking key's patterns); reports from before carry
-- none and are shown to keys of every scope only.
create function concord_in_scopes(scopes text, patterns text) returns boolean
language sql immutable parallel safe as $$
    select scopes is null or patterns is null or not exists (
        select 1 from unnest(string_to_array(scopes, E'\n')) as s(scope)
        where not exists (
            select 1 from unnest(string_to_array(patterns, E'\n')) as p(pattern)
            where case when right(p.pattern, 1) = '*'
                       then starts_with(s.scope, left(p.pattern, -1))
                       else s.scope = p.pattern end))
$$;

alter table conflict_reports add column scopes text;
