import { Fragment } from 'react';

/**
 * An e-mail address that, when it must wrap, wraps before its "@" or a dot rather than at any letter; the CSS's
 * `overflow-wrap: anywhere` is left only for a part too long for a line by itself (decision 128). A link around it
 * takes the address as its `aria-label`: some name computations read each `<wbr>` as a space.
 */
export function EmailAddress({ email }: { email: string }) {
  const parts = email.split(/(?=[@.])/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
