-- The label index follows `nodes.labels` by triggers, in the statement that writes the node:
-- a write makes one statement less, and no code path that writes a node can forget its
-- labels. Deletes were already cascaded by the foreign key.
create trigger node_labels_insert after insert on nodes begin
    insert or ignore into node_labels (label, node_id)
    select value, new.node_id from json_each(new.labels);
end;

create trigger node_labels_update after update of labels on nodes
when old.labels is not new.labels begin
    delete from node_labels where node_id = old.node_id;
    insert or ignore into node_labels (label, node_id)
    select value, new.node_id from json_each(new.labels);
end;
