import { PRODUCT_NAME } from '../../../schema/constants';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
} from '../../components/ui/alert-dialog';
import type { ResidentLocal } from '../../db/collections';
import { toast } from '../../lib/toast';
import { archiveResident } from './residents-api';

interface ArchiveResidentDialogProps {
  resident: ResidentLocal | null;
  onOpenChange: (open: boolean) => void;
  onArchived: () => void;
}

/**
 * The archive confirmation (docs/behaviour.md, "Residents"), headed by the product name as the original's browser
 * confirm was, with the toasts (docs/behaviour.md, "Residents"). Only administrators reach it (the server checks too).
 */
export function ArchiveResidentDialog({ resident, onOpenChange, onArchived }: ArchiveResidentDialogProps) {
  const confirm = async (target: ResidentLocal) => {
    try {
      await archiveResident(target.id);
      toast({ title: 'Success', description: 'Resident archived successfully' });
      onArchived();
    } catch (error) {
      console.error('Could not archive the resident', error);
      toast({ title: 'Error', description: 'Failed to archive resident', variant: 'destructive' });
    }
  };
  return (
    <AlertDialog open={resident !== null} onOpenChange={onOpenChange}>
      {resident ? (
        <AlertDialogContent>
          <AlertDialogTitle>{PRODUCT_NAME}</AlertDialogTitle>
          <AlertDialogDescription>
            {`Are you sure you want to archive ${resident.name}? This will remove them from the active resident list.`}
          </AlertDialogDescription>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction onClick={() => void confirm(resident)}>Archive</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      ) : null}
    </AlertDialog>
  );
}
