import { Lightbulb } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../components/ui/button';
import { SuggestionDialog } from './suggestion-dialog';

/**
 * "Make a Suggestion" in the sidebar's Team Resources, opening the suggestion dialog
 * (docs/behaviour.md, "Support and suggestions").
 */
export function SuggestionButton() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="outline" className="sidebar-button" onClick={() => setOpen(true)}>
        <Lightbulb aria-hidden size={18} />
        Make a Suggestion
      </Button>
      <SuggestionDialog open={open} onOpenChange={setOpen} />
    </>
  );
}
