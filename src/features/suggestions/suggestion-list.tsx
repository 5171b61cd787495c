import { Lightbulb, RefreshCw } from 'lucide-react';
import { useEffect, useState } from 'react';
import { displayName, formatDateTime } from '../../../schema/format';
import { SUGGESTION_CATEGORY_LABELS } from '../../../schema/suggestion-rules';
import type { Suggestion } from '../../../schema/suggestions';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card';
import { serverMessageOf } from '../../lib/api';
import { listSuggestions } from './suggestions-api';
import './suggestions.css';

type State = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; items: Suggestion[] };

/** The Staff Suggestions list of the admin page (docs/behaviour.md, "Support and suggestions"), newest first. */
export function SuggestionList() {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let cancelled = false;
    listSuggestions()
      .then((items) => {
        if (!cancelled) setState({ status: 'ready', items });
      })
      .catch((error: unknown) => {
        if (!cancelled)
          setState({ status: 'error', message: serverMessageOf(error, 'Could not load the suggestions.') });
      });
    return () => {
      cancelled = true;
    };
  }, [attempt]);
  const retry = () => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  };

  return (
    <Card aria-labelledby="staff-suggestions-title">
      <CardHeader>
        <CardTitle id="staff-suggestions-title">
          <Lightbulb aria-hidden size={20} />
          Staff Suggestions
          {state.status === 'ready' ? <Badge>{state.items.length}</Badge> : null}
        </CardTitle>
      </CardHeader>
      <CardContent>
        {state.status === 'loading' ? <p className="muted">Loading suggestions...</p> : null}
        {state.status === 'error' ? (
          <div className="stack">
            <p className="error-text" role="alert">{`Error: ${state.message}`}</p>
            <div>
              <Button variant="outline" onClick={retry}>
                <RefreshCw aria-hidden size={16} />
                Retry
              </Button>
            </div>
          </div>
        ) : null}
        {state.status === 'ready' && state.items.length === 0 ? (
          <p className="muted empty">No suggestions yet.</p>
        ) : null}
        {state.status === 'ready' && state.items.length > 0 ? (
          <ul className="suggestion-list">
            {state.items.map((item) => (
              <li key={item.id} className="suggestion-item">
                <div className="suggestion-head">
                  <h3 className="suggestion-title">{item.title}</h3>
                  <Badge tone="brand">{SUGGESTION_CATEGORY_LABELS[item.category]}</Badge>
                </div>
                <p className="suggestion-content">{item.content}</p>
                <p className="suggestion-meta muted">
                  {displayName(item.author)} · <time dateTime={item.createdAt}>{formatDateTime(item.createdAt)}</time>
                </p>
              </li>
            ))}
          </ul>
        ) : null}
      </CardContent>
    </Card>
  );
}
