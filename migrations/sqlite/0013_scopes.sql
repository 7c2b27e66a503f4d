-- Keys hold scopes, and every read shows a key only what its scopes hold. The filter is the
-- function `concord_in_scopes(scopes, patterns)`, registered on each connection by concord
-- (the rule is `domain::access::in_scopes`). A stored report records the scopes of the memories
-- it drew on (or, with none, the asking key's patterns); reports from before carry none and are
-- shown to keys of every scope only.
alter table conflict_reports add column scopes text;
