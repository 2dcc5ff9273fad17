-- The VM list's natural name order (issue 25 item 2): each run of digits left-padded with zeros to 20 places (longer
-- runs kept whole), the rest lower-cased; compared with collate "C" so PostgreSQL and PGlite order alike.
CREATE OR REPLACE FUNCTION vm_name_sort_key(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  select string_agg(case when p.m[1] ~ '^[0-9]' then lpad(p.m[1], greatest(20, length(p.m[1])), '0') else lower(p.m[1]) end, '' order by p.i)
  from regexp_matches(name, '[0-9]+|[^0-9]+', 'g') with ordinality as p(m, i)
$$;--> statement-breakpoint
CREATE INDEX "vms_live_name_key_idx" ON "virtual_machines" USING btree ("company_id",vm_name_sort_key("name") collate "C","id") WHERE deleted_at is null;
