/**
 * Form text field: label, required marker, text / password (show-hide) / textArea, inline error
 * taken from the form's error for this field name.
 */
import Eye from 'lucide-react/icons/eye';
import EyeOff from 'lucide-react/icons/eye-off';
import { useId, useState, type InputHTMLAttributes } from 'react';
import {
  useFormContext,
  type FieldValues,
  type Path,
  type UseFormRegister,
  type FieldErrors,
  type RegisterOptions,
  get,
} from 'react-hook-form';

interface Props<T extends FieldValues> extends Omit<
  InputHTMLAttributes<HTMLInputElement & HTMLTextAreaElement>,
  'name' | 'type'
> {
  name: Path<T>;
  label: string;
  type?: 'text' | 'password' | 'textArea' | 'email';
  required?: boolean;
  register?: UseFormRegister<T>;
  errors?: FieldErrors<T>;
  /** How the typed text becomes the form's value (e.g. `setValueAs` for numbers). */
  registerOptions?: RegisterOptions<T, Path<T>>;
  rows?: number;
}

export const inputClass =
  'block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 text-sm shadow-sm placeholder:text-slate-400 focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 disabled:bg-slate-100 dark:disabled:bg-slate-800 disabled:text-slate-500';

export function TextField<T extends FieldValues>({
  name,
  label,
  type = 'text',
  required,
  register,
  errors,
  registerOptions,
  rows = 4,
  className = '',
  ...rest
}: Props<T>) {
  const id = useId();
  const context = useFormContext<T>() as ReturnType<typeof useFormContext<T>> | null;
  const reg = register ?? context?.register;
  const errs = errors ?? context?.formState.errors;
  const error = get(errs, name) as { message?: string } | undefined;
  const [shown, setShown] = useState(false);
  const registered = reg ? reg(name, registerOptions) : { name };
  const describedBy = error?.message ? `${id}-error` : undefined;

  return (
    <div className={`space-y-1 ${className}`}>
      <div className="flex items-baseline gap-0.5">
        <label htmlFor={id} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
          {label}
        </label>
        {/* Outside the label so the field's accessible name is exactly the label. */}
        {required && (
          <span className="text-sm text-red-600 dark:text-red-400" aria-hidden>
            *
          </span>
        )}
      </div>
      {type === 'textArea' ? (
        <textarea
          id={id}
          rows={rows}
          className={inputClass}
          aria-invalid={!!error}
          aria-describedby={describedBy}
          {...registered}
          {...rest}
        />
      ) : (
        <div className="relative">
          <input
            id={id}
            type={type === 'password' ? (shown ? 'text' : 'password') : type}
            className={`${inputClass} ${type === 'password' ? 'pr-10' : ''}`}
            aria-invalid={!!error}
            aria-describedby={describedBy}
            {...registered}
            {...rest}
          />
          {type === 'password' && (
            <button
              type="button"
              onClick={() => setShown((s) => !s)}
              aria-label={shown ? 'Hide password' : 'Show password'}
              className="absolute inset-y-0 right-0 flex items-center px-3 text-slate-500 dark:text-slate-400 hover:text-slate-700 dark:hover:text-slate-100"
            >
              {shown ? <EyeOff className="h-4 w-4" /> : <Eye className="h-4 w-4" />}
            </button>
          )}
        </div>
      )}
      <FieldError id={id} message={error?.message} />
    </div>
  );
}

/** A field's own message under it, named by the field's `aria-describedby` (`{id}-error`). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={`${id}-error`} className="text-sm text-red-600 dark:text-red-400">
      {message}
    </p>
  );
}
