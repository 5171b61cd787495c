import { useAtomValue } from 'jotai';
import type { MouseEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { SSO_MESSAGES, ssoReasonOf } from '../../../schema/sso-rules';
import { Notice } from '../../components/ui/notice';
import { configAtom } from '../../lib/public-config';
import { completePendingSignOut, noteSignIn } from './session-marks';
import './sso.css';

const SSO_START = '/api/auth/sso/start';
/** `/login?admin`: the password form for the break-glass System Administrator when passwords are off (decision 149). */
const ADMIN_PARAM = 'admin';

/** Whether the sign-in screen shows the e-mail and password form. */
export function usePasswordFormShown(): boolean {
  const { passwordSignIn } = useAtomValue(configAtom);
  const [params] = useSearchParams();
  return passwordSignIn !== false || params.has(ADMIN_PARAM);
}

/** Leaves for the provider as a sign-in: an offline sign-out is completed first, as before a password (decision 114). */
async function startSso(event: MouseEvent<HTMLAnchorElement>) {
  event.preventDefault();
  await completePendingSignOut();
  noteSignIn();
  window.location.assign(SSO_START);
}

/** Why the last single sign-on came back here (`/login?sso=<reason>`). */
function SsoNotice() {
  const [params] = useSearchParams();
  const reason = ssoReasonOf(params.get('sso'));
  if (!reason) return null;
  return (
    <Notice tone="danger" role="alert" title="Sign-in failed">
      {SSO_MESSAGES[reason]}
    </Notice>
  );
}

/** "Sign in with <label>" when single sign-on is on; with passwords off, a small way in for the administrator. */
export function SsoSignIn() {
  const { sso, passwordSignIn } = useAtomValue(configAtom);
  const passwordShown = usePasswordFormShown();
  if (!sso) return null;
  return (
    <div className="sso-sign-in">
      <SsoNotice />
      <a
        href={SSO_START}
        onClick={(event) => void startSso(event)}
        className={`btn btn-lg ${passwordShown ? 'btn-outline' : 'btn-primary'} sso-button`}
      >
        Sign in with {sso.label}
      </a>
      {passwordShown ? (
        <p className="sso-or">or with your e-mail and password</p>
      ) : (
        <p className="sso-admin">
          <Link to={`/login?${ADMIN_PARAM}`} className="text-link">
            Administrator sign-in
          </Link>
        </p>
      )}
      {passwordSignIn === false && passwordShown ? (
        <p className="sso-or">Password sign-in is for the System Administrator only.</p>
      ) : null}
    </div>
  );
}
