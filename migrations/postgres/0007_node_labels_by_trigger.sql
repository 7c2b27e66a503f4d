-- The label index follows `nodes.labels` by triggers, in the statement that writes the node:
-- a write makes one round trip less, and no code path that writes a node can forget its
-- labels. Deletes were already cascaded by the foreign key.
create function node_labels_sync() returns trigger language plpgsql as $$
begin
    if tg_op = 'UPDATE' then
        delete from node_labels where node_id = old.node_id;
    end if;
    insert into node_labels (label, node_id)
    select distinct l, new.node_id from jsonb_array_elements_text(new.labels) as l
    on conflict do nothing;
    return null;
end
$$;

create trigger node_labels_insert after insert on nodes
for each row execute function node_labels_sync();

create trigger node_labels_update after update of labels on nodes
for each row when (old.labels is distinct from new.labels)
execute function node_labels_sync();
