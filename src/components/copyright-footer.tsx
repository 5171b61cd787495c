import { useAtomValue } from 'jotai';
import { configAtom } from '../lib/public-config';

const YEAR = new Date().getFullYear();

/** The proprietary-software notice (docs/behaviour.md, "Product"), with the organisation's name. */
export function CopyrightFooter() {
  const { orgName } = useAtomValue(configAtom);
  return (
    <footer className="site-footer">
      <p>
        © {YEAR} {orgName}. All rights reserved. Proprietary software: use is permitted only under an authorised
        licence.
      </p>
    </footer>
  );
}
