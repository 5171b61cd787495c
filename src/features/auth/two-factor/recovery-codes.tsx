import { Copy, Printer } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../lib/toast';

/** The recovery codes, shown once, with copy and print (decision 148). */
export function RecoveryCodesList({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      toast({ title: 'Copied', description: 'Your recovery codes are on the clipboard.' });
    } catch {
      toast({
        title: 'Could not copy',
        description: 'Select the codes and copy them instead.',
        variant: 'destructive',
      });
    }
  };
  return (
    <section className="stack two-factor-codes" aria-labelledby="recovery-codes-title">
      <h3 id="recovery-codes-title">Your recovery codes</h3>
      <p>
        Keep these codes somewhere safe. Each one signs you in once if you cannot use your authenticator app. They are
        shown only now.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="row-end two-factor-actions">
        <Button variant="outline" onClick={() => void copy()}>
          <Copy aria-hidden size={16} />
          Copy
        </Button>
        <Button variant="outline" onClick={() => window.print()}>
          <Printer aria-hidden size={16} />
          Print
        </Button>
        <Button onClick={onDone}>I have saved my recovery codes</Button>
      </div>
    </section>
  );
}
