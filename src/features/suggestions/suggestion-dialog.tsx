import { useId, useState, type FormEvent } from 'react';
import { LIMITS } from '../../../schema/constants';
import {
  isSuggestionComplete,
  SUGGESTION_CATEGORIES,
  SUGGESTION_CATEGORY_LABELS,
  SUGGESTION_MESSAGES,
  type SuggestionCategory,
} from '../../../schema/suggestion-rules';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import { Input } from '../../components/ui/input';
import { Label } from '../../components/ui/label';
import { Select, type SelectOption } from '../../components/ui/select';
import { Textarea } from '../../components/ui/textarea';
import { toast } from '../../lib/toast';
import { submitSuggestion } from './suggestions-api';

const CATEGORY_OPTIONS: SelectOption<SuggestionCategory>[] = SUGGESTION_CATEGORIES.map((value) => ({
  value,
  label: SUGGESTION_CATEGORY_LABELS[value],
}));

interface SuggestionDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/**
 * The suggestion dialog: title, description, category and its toasts (docs/behaviour.md, "Support and suggestions").
 */
export function SuggestionDialog({ open, onOpenChange }: SuggestionDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? (
        <DialogContent>
          <SuggestionForm onDone={() => onOpenChange(false)} />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function Counter({ id, length, max }: { id: string; length: number; max: number }) {
  return (
    <p id={id} className="field-hint char-counter" aria-live="polite">
      {length}/{max}
    </p>
  );
}

function SuggestionForm({ onDone }: { onDone: () => void }) {
  const id = useId();
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [category, setCategory] = useState<SuggestionCategory | ''>('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (category === '' || !isSuggestionComplete({ title, content, category })) {
      toast({ title: 'Missing Information', description: SUGGESTION_MESSAGES.missing, variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      await submitSuggestion({ title, content, category });
      toast({ title: 'Suggestion submitted', description: 'Your suggestion has been submitted successfully.' });
      onDone();
    } catch (error) {
      console.error('Could not submit the suggestion', error);
      toast({ title: 'Error', description: 'Failed to submit suggestion. Please try again.', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" noValidate onSubmit={(event) => void submit(event)}>
      <DialogTitle>Make a Suggestion</DialogTitle>
      <DialogDescription>
        Share an idea to improve the portal. System Administrators read every suggestion.
      </DialogDescription>
      <div className="field">
        <Label htmlFor={`${id}-title`}>Title</Label>
        <Input
          id={`${id}-title`}
          value={title}
          maxLength={LIMITS.suggestionTitleMax}
          aria-describedby={`${id}-title-count`}
          onChange={(event) => setTitle(event.target.value)}
        />
        <Counter id={`${id}-title-count`} length={title.length} max={LIMITS.suggestionTitleMax} />
      </div>
      <div className="field">
        <Label htmlFor={`${id}-content`}>Description</Label>
        <Textarea
          id={`${id}-content`}
          value={content}
          rows={5}
          maxLength={LIMITS.suggestionContentMax}
          aria-describedby={`${id}-content-count`}
          onChange={(event) => setContent(event.target.value)}
        />
        <Counter id={`${id}-content-count`} length={content.length} max={LIMITS.suggestionContentMax} />
      </div>
      <div className="field">
        <Label htmlFor={`${id}-category`}>Category</Label>
        <Select
          id={`${id}-category`}
          value={category}
          onValueChange={setCategory}
          options={CATEGORY_OPTIONS}
          placeholder="Select a category"
        />
      </div>
      <DialogFooter>
        <Button variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          {busy ? 'Submitting...' : 'Submit Suggestion'}
        </Button>
      </DialogFooter>
    </form>
  );
}
