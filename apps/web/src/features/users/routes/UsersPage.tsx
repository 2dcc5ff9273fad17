/** /users — name and email, row → /user, delete (hidden for yourself) with errors in the dialog. */
import Trash2 from 'lucide-react/icons/trash-2';
import Users from 'lucide-react/icons/users';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { DeleteConfirmationModal } from '../../../components/ui/DeleteConfirmationModal.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useUsersList, useUserWrite } from '../api/users.ts';

export function UsersPage() {
  const navigate = useNavigate();
  const { user: me } = useAuth();
  const table = useTableState();
  const list = useUsersList({ ...table.query, rowsPerPage: PAGE_SIZE.users });
  const del = useUserWrite(routes.users.delete);
  const [selected, setSelected] = useState<{ id: number; name: string } | null>(null);
  const canManage = me?.isCompanyAdmin ?? false;

  function confirmDelete() {
    if (!selected) return;
    const { name } = selected;
    del.mutate(
      { params: { id: selected.id } },
      {
        onSuccess: () => {
          toast.success(TEXT.userDeleted(name));
          setSelected(null);
        },
      },
    );
  }
  function closeDelete() {
    del.reset();
    setSelected(null);
  }

  return (
    // Inviting and deleting users is for company administrators (users.manage); others are not offered it.
    <PageLayout
      title="Users"
      {...(canManage ? { action: { name: 'Create User', onClick: () => navigate('/createUser') } } : {})}
    >
      <DataTable
        title="Users"
        message="People in your company"
        icon={<Users className="h-5 w-5" />}
        columns={[
          {
            key: 'name',
            header: 'Name',
            render: (u) => (
              <span className="font-medium text-slate-900 dark:text-slate-100">
                {/* Only the name may break anywhere: the badges beside it stay whole. */}
                <span className={wrapClass(u.name)}>{u.name}</span>
                {u.isCompanyAdmin && (
                  <span
                    className="ml-2 rounded bg-brand-100 dark:bg-brand-700/40 px-1.5 py-0.5 text-xs font-medium text-brand-700 dark:text-brand-100"
                    title={ACTIVITY_TEXT.companyAdmin}
                  >
                    {ACTIVITY_TEXT.adminBadge}
                  </span>
                )}
                {!u.confirmed && (
                  <span className="ml-2 rounded bg-amber-100 dark:bg-amber-900/50 px-1.5 py-0.5 text-xs font-medium text-amber-800 dark:text-amber-200">
                    Invited
                  </span>
                )}
              </span>
            ),
          },
          {
            key: 'email',
            header: 'Email',
            // An address has no space to wrap at: without this the row is wider than a phone and its last
            // column (Remove, the trash icon) is cut off at the right edge (issue 25, defect 2).
            className: 'wrap-anywhere',
            render: (u) => u.email,
          },
          {
            key: 'delete',
            header: <span className="sr-only">Delete</span>,
            align: 'right',
            render: (u) =>
              u.id === me?.id || !canManage ? null : (
                <button
                  type="button"
                  aria-label={`Delete ${u.name}`}
                  className="rounded p-1.5 text-slate-400 hover:bg-red-50 dark:hover:bg-red-950/50 hover:text-red-600"
                  onClick={(e) => {
                    e.stopPropagation();
                    del.reset();
                    setSelected({ id: u.id, name: u.name });
                  }}
                >
                  <Trash2 className="h-4 w-4" />
                </button>
              ),
          },
        ]}
        rows={list.error ? [] : list.data?.data}
        rowKey={(u) => u.id}
        rowLabel={(u) => u.name}
        onRowClick={(u) => navigate(`/user?id=${u.id}`)}
        loading={list.isPending}
        error={errorText(list.error, ERRORS.fetchUsers)}
        noDataMessage={TEXT.noUsers}
        search={{ value: table.search, onChange: table.setSearch }}
        onRefresh={() => list.refetch()}
        page={table.page}
        totalPages={list.data?.totalPages ?? 0}
        onPageChange={table.setPage}
      />
      <DeleteConfirmationModal
        target={selected}
        item="user"
        pending={del.isPending}
        error={del.error}
        errorPrefix={ERRORS.deleteUsers}
        onConfirm={confirmDelete}
        onCancel={closeDelete}
      />
    </PageLayout>
  );
}
