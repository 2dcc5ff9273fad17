/**
 * The portal's own SQL as the limit target runs it (named prepared statements), and as the SQL-alone ceiling
 * (lib/sql-ceiling.ts) hands it to pgbench. Kept identical to what the portal sends: the bench compares answers.
 */
export const SESSION = {
  name: 'limit_session',
  text: `select "sessions"."state", "sessions"."remember_me", "sessions"."last_seen_at", "users"."id", "users"."company_id", "users"."email", "users"."is_company_admin", "users"."force_password_reset", "companies"."reseller_id" from "sessions" inner join "users" on "users"."id" = "sessions"."user_id" inner join "companies" on "companies"."id" = "users"."company_id" where ("sessions"."id" = $1 and "sessions"."expires_at" > $2 and "companies"."suspended_at" is null) limit 1`,
};
export const LIST = {
  name: 'limit_list',
  text: `select "virtual_machines"."id", "virtual_machines"."name", "virtual_machines"."status", "configurations"."name" as configuration, "configurations"."cpu", "configurations"."ram", "virtual_machines"."created_at", "virtual_machines"."region_id", "virtual_machines"."team_id", count(*) over () as total from "virtual_machines" inner join "configurations" on "configurations"."id" = "virtual_machines"."configuration_id" where (("virtual_machines"."company_id" = $1 and "virtual_machines"."deleted_at" is null) and "virtual_machines"."name" ilike $2) order by "virtual_machines"."name" asc, "virtual_machines"."id" asc limit $3 offset $4`,
};
export const USER = {
  name: 'limit_user',
  text: `select u.id, u.email, u.first_name, u.last_name, u.created_at, u.force_password_reset, u.is_company_admin, u.staff_role, c.name as company_name,
    coalesce(r.name, d.name) as reseller_name, coalesce(r.email, d.email) as reseller_email, coalesce(r.logo_url, d.logo_url) as logo_url, coalesce(r.tab_logo_url, d.tab_logo_url) as tab_logo_url
    from users u join companies c on c.id = u.company_id join resellers r on r.id = c.reseller_id join distributors d on d.id = r.distributor_id where u.id = $1 limit 1`,
};
// The VM with its size and place, visible to a company admin, and its pending operation: one statement.
export const DETAILS = {
  name: 'limit_details',
  text: `select vm.id, vm.name, vm.status, vm.image, vm.created_at, vm.updated_at, vm.team_id, vm.public_ip, vm.private_ip, vm.provider_ref, vm.error_reason,
    c.id as configuration_id, c.name as configuration, c.cpu, c.ram, c.disk, r.name as region, co.name as country,
    (select o.kind from operations o where o.vm_id = vm.id and o.status in ('pending', 'running') limit 1) as pending_operation
    from virtual_machines vm join configurations c on c.id = vm.configuration_id join regions r on r.id = vm.region_id join countries co on co.id = r.country_id
    where vm.id = $1 and vm.company_id = $2 and vm.deleted_at is null limit 1`,
};
