-- How a memory was obtained (contract section 14): `{"method"?, "verified"?}` as JSON, or
-- null when the writer did not say. Written once with the memory and never changed, so
-- versions do not record it; its evidence strength reads it.
alter table nodes add column provenance text;
