/**
 * A backup's consistency as a small label (decision 0028): "application-consistent" when the guest's file systems were
 * frozen through its agent for the copy, "crash-consistent" otherwise; its title says what that means. Nothing while
 * the take runs or when it failed (the server says null then). The VM page's Backups card and the /backups screen.
 */
import { BACKUP_CONSISTENCY_TEXT, type BackupConsistency } from '@portal/contract/backup-consistency';

export function ConsistencyLabel({
  consistency,
  className = '',
}: {
  consistency: BackupConsistency | null;
  className?: string;
}) {
  if (!consistency) return null;
  const text = BACKUP_CONSISTENCY_TEXT[consistency];
  return (
    <span
      className={`whitespace-nowrap ${className}`}
      data-label="consistency"
      data-consistency={consistency}
      title={text.title}
    >
      {text.label}
    </span>
  );
}
