import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Button } from './ui/button';

/** A screen's title and subtitle with its "Back to Home" button, and the screen's own actions after it. */
export function PageTitle({ title, subtitle, actions }: { title: string; subtitle: string; actions?: ReactNode }) {
  const back = (
    <Button asChild variant="outline" size="sm">
      <Link to="/">
        <ArrowLeft aria-hidden size={16} />
        Back to Home
      </Link>
    </Button>
  );
  return (
    <div className="page-title-row">
      <div>
        <h1 className="page-title">{title}</h1>
        <p className="page-subtitle">{subtitle}</p>
      </div>
      {actions ? (
        <div className="page-title-actions">
          {back}
          {actions}
        </div>
      ) : (
        back
      )}
    </div>
  );
}
