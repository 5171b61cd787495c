import { LoaderCircle } from 'lucide-react';

/** The full-page wait (docs/behaviour.md, "Screens and routes"): a spinner with the text "Loading...". */
export function PageSpinner({ text = 'Loading...' }: { text?: string }) {
  return (
    <div className="page-spinner" role="status">
      <LoaderCircle aria-hidden className="spin" size={36} />
      <p>{text}</p>
    </div>
  );
}

export function InlineSpinner() {
  return <LoaderCircle aria-hidden className="spin" size={16} />;
}
