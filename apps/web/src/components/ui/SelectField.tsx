/**
 * Form select: label, options, inline error taken from the form's error for this field name (the select
 * counterpart of TextField; registered through the surrounding FormProvider).
 */
import { useId } from 'react';
import { useFormContext, get, type FieldValues, type Path, type RegisterOptions } from 'react-hook-form';
import { FieldError, inputClass } from './TextField.tsx';

export interface SelectOption {
  value: string | number;
  label: string;
}

interface Props<T extends FieldValues> {
  name: Path<T>;
  label: string;
  options: SelectOption[];
  /** How the chosen value becomes the form's value (e.g. `valueAsNumber` for ids). */
  registerOptions?: RegisterOptions<T, Path<T>>;
  disabled?: boolean;
  className?: string;
}

export function SelectField<T extends FieldValues>({
  name,
  label,
  options,
  registerOptions,
  disabled,
  className = '',
}: Props<T>) {
  const id = useId();
  const { register, formState } = useFormContext<T>();
  const error = get(formState.errors, name) as { message?: string } | undefined;
  return (
    <div className={`space-y-1 ${className}`}>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
        {label}
      </label>
      <select
        id={id}
        className={inputClass}
        disabled={disabled}
        aria-invalid={!!error}
        aria-describedby={error?.message ? `${id}-error` : undefined}
        {...register(name, registerOptions)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldError id={id} message={error?.message} />
    </div>
  );
}
