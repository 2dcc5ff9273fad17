/** The footer of the catalog's form dialogs: Cancel, and the submit button of the form the dialog holds. */
import { Button } from '../../../components/ui/Button.tsx';

export function FormFooter({
  formId,
  label,
  pending,
  onClose,
}: {
  formId: string;
  label: string;
  pending: boolean;
  onClose: () => void;
}) {
  return (
    <>
      <Button variant="secondary" onClick={onClose}>
        Cancel
      </Button>
      <Button type="submit" form={formId} disabled={pending}>
        {label}
      </Button>
    </>
  );
}
