import { useAtomValue } from 'jotai';
import { LifeBuoy, Mail } from 'lucide-react';
import { configAtom } from '../lib/public-config';
import { EmailAddress } from './email-address';
import { Card } from './ui/card';

const looks = {
  sidebar: { box: 'sidebar-card sidebar-help', title: 'sidebar-title', titleId: 'sidebar-help', icon: 18 },
  sheet: { box: 'sheet-help', title: 'sheet-help-title', titleId: 'sheet-help-title', icon: 16 },
} as const;

/**
 * The "Need Help?" support contact (docs/behaviour.md, "Support and suggestions"): a card of the desktop sidebar, the
 * foot of the phone menu.
 */
export function NeedHelp({ variant }: { variant: keyof typeof looks }) {
  const { supportEmail } = useAtomValue(configAtom);
  const look = looks[variant];
  const content = (
    <>
      <h2 id={look.titleId} className={look.title}>
        <LifeBuoy aria-hidden size={look.icon} />
        Need Help?
      </h2>
      <p className="muted">Questions about the portal? Contact support.</p>
      {supportEmail ? (
        <a className="text-link sidebar-mail" href={`mailto:${supportEmail}`} aria-label={supportEmail}>
          <Mail aria-hidden size={16} />
          <EmailAddress email={supportEmail} />
        </a>
      ) : null}
    </>
  );
  return variant === 'sidebar' ? (
    <Card className={look.box} aria-labelledby={look.titleId}>
      {content}
    </Card>
  ) : (
    <section className={look.box} aria-labelledby={look.titleId}>
      {content}
    </section>
  );
}
