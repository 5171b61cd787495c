import { Check, Circle } from 'lucide-react';
import { PASSWORD_RULES } from '../../../schema/auth-rules';
import { cx } from '../../lib/cx';

/** The live five-item checklist (docs/behaviour.md, "Accounts"), in the order of schema/auth.ts. */
export function PasswordChecklist({ password, id }: { password: string; id?: string }) {
  return (
    <ul className="checklist" id={id} aria-label="Password requirements">
      {PASSWORD_RULES.map((rule) => {
        const met = rule.test(password);
        return (
          <li key={rule.label} className={cx('checklist-item', met && 'checklist-item-met')}>
            {met ? <Check aria-hidden size={14} /> : <Circle aria-hidden size={14} />}
            <span>{rule.label}</span>
            <span className="visually-hidden">{met ? '(met)' : '(not met)'}</span>
          </li>
        );
      })}
    </ul>
  );
}
