import { Copy } from 'lucide-react';
import { Button } from './ui/button';
import { toast } from '../lib/toast';

/** Copies text the app could not keep (decision 117) to the clipboard; the text stays on the screen as well. */
export function CopyTextButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: 'Copied' });
    } catch (error) {
      console.warn('Could not copy to the clipboard', error);
      toast({ title: 'Could not copy — select the text and copy it', variant: 'destructive' });
    }
  };
  return (
    <Button variant="outline" size="sm" onClick={() => void copy()}>
      <Copy aria-hidden size={14} />
      {label}
    </Button>
  );
}
