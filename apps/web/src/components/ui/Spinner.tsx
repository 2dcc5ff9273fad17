import Loader2 from 'lucide-react/icons/loader-2';

export function Spinner({ label = 'Loading', className = '' }: { label?: string; className?: string }) {
  return (
    <span role="status" aria-label={label} className={`inline-flex items-center justify-center ${className}`}>
      <Loader2 className="h-5 w-5 motion-safe:animate-spin text-brand-600 dark:text-brand-300" aria-hidden />
    </span>
  );
}
