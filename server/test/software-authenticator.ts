import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

type Cbor = Parameters<typeof isoCBOR.encode>[0];

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/**
 * A passkey authenticator in software for tests (decision 148): P-256 keys, `none` attestation, discoverable
 * credentials kept per relying party. It answers options as a browser's navigator.credentials would, as JSON.
 */
export class SoftwareAuthenticator {
  private readonly credentials: Credential[] = [];
  constructor(
    readonly origin: string,
    /** Whether it verifies the user (a PIN or fingerprint); a passkey without it must be refused. */
    readonly userVerified = true,
  ) {}

  private get rpIdHash(): Buffer {
    return sha256(new URL(this.origin).hostname);
  }

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const head = Buffer.alloc(37);
    this.rpIdHash.copy(head, 0);
    head[32] = flags | (this.userVerified ? UV : 0);
    head.writeUInt32BE(counter, 33);
    return attested ? Buffer.concat([head, attested]) : head;
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** navigator.credentials.create: a new credential for the user of the options. */
  create(options: { challenge: string; user: { id: string } }) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(String(jwk.x))],
      [-3, isoBase64URL.toBuffer(String(jwk.y))],
    ]);
    const id = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, Buffer.from(isoCBOR.encode(cose))]);
    const authData = this.authData(UP | AT, 0, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, Cbor>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    this.credentials.push({ id, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get: signs with an allowed credential, or any it holds when none is named. */
  get(options: { challenge: string; allowCredentials?: { id: string }[] }, which = 0) {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const usable = this.credentials.filter((c) => !allowed?.length || allowed.includes(b64url(c.id)));
    const credential = usable[which];
    if (!credential) throw new Error('no credential for these options');
    credential.counter += 1;
    const authData = this.authData(UP, credential.counter);
    const clientData = this.clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
