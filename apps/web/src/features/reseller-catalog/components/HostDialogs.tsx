/** The hosts screen's dialogs: edit a host's capacity and overcommit, and register a new host. */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { useRegisterHost, useUpdateHost, type HostView } from '../api/catalog.ts';

const inputClass =
  'block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30';

const CAPACITY = [
  ['cpus', 'CPUs'],
  ['ramGb', 'RAM (GB)'],
  ['diskGb', 'Disk (GB)'],
  ['cpuOvercommit', 'CPU overcommit'],
  ['ramOvercommit', 'RAM overcommit'],
  ['diskOvercommit', 'Disk overcommit'],
] as const;
type CapacityKey = (typeof CAPACITY)[number][0];
type Values = Record<CapacityKey, string>;

function Field({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium text-slate-700 dark:text-slate-300">{label}</span>
      <input className={inputClass} value={value} inputMode="decimal" onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** Numbers typed in; empty fields are left out (the server keeps or reads them). */
function numbers(values: Partial<Values>): Partial<Record<CapacityKey, number>> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined && v.trim() !== '')
      .map(([k, v]) => [k, Number(v)]),
  );
}

export function EditCapacityDialog({ host, onClose }: { host: HostView; onClose: () => void }) {
  const update = useUpdateHost();
  const [values, setValues] = useState<Values>(
    Object.fromEntries(CAPACITY.map(([k]) => [k, String(host[k])])) as Values,
  );
  return (
    <Modal
      open
      title={`Edit ${host.name}`}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            disabled={update.isPending}
            onClick={() =>
              update.mutate(
                { params: { id: host.id }, body: numbers(values) },
                {
                  onSuccess: () => {
                    toast.success(`${host.name} saved`);
                    onClose();
                  },
                },
              )
            }
          >
            Save
          </Button>
        </>
      }
    >
      <div className="grid grid-cols-2 gap-3">
        {CAPACITY.map(([k, label]) => (
          <Field key={k} label={label} value={values[k]} onChange={(v) => setValues({ ...values, [k]: v })} />
        ))}
      </div>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        A host takes new VMs while they fit within capacity × overcommit.
      </p>
      <ErrorText error={update.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}

export function RegisterHostDialog({
  providers,
  regions,
  onClose,
}: {
  providers: { id: number; name: string }[];
  regions: { id: number; name: string }[];
  onClose: () => void;
}) {
  const register = useRegisterHost();
  const [name, setName] = useState('');
  const [uri, setUri] = useState('');
  const [providerId, setProviderId] = useState(providers[0]?.id ?? 0);
  const [regionId, setRegionId] = useState(regions[0]?.id ?? 0);
  const [values, setValues] = useState<Partial<Values>>({});
  return (
    <Modal
      open
      title="Register host"
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            disabled={register.isPending || providers.length === 0}
            onClick={() =>
              register.mutate(
                { body: { name, uri, providerId, regionId, ...numbers(values) } },
                {
                  onSuccess: (res) => {
                    toast.success(`${res.data.name} registered`);
                    onClose();
                  },
                },
              )
            }
          >
            Register
          </Button>
        </>
      }
    >
      <div className="grid grid-cols-2 gap-3">
        <Field label="Name" value={name} onChange={setName} />
        <Field label="libvirt URI" value={uri} onChange={setUri} />
        <label className="block text-sm">
          <span className="mb-1 block font-medium text-slate-700 dark:text-slate-300">Provider</span>
          <select className={inputClass} value={providerId} onChange={(e) => setProviderId(Number(e.target.value))}>
            {providers.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="block text-sm">
          <span className="mb-1 block font-medium text-slate-700 dark:text-slate-300">Region</span>
          <select className={inputClass} value={regionId} onChange={(e) => setRegionId(Number(e.target.value))}>
            {regions.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </select>
        </label>
        {CAPACITY.map(([k, label]) => (
          <Field key={k} label={label} value={values[k] ?? ''} onChange={(v) => setValues({ ...values, [k]: v })} />
        ))}
      </div>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        Capacity left empty is read from the host, which must then answer.
      </p>
      <ErrorText error={register.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}
