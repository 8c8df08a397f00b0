import { createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';

/**
 * Self-generated Ed25519 keys (docs/transport.md "Ed25519 keys"): the user keeps the private key in
 * the credential as PEM (PKCS#8) and uploads the public key to the exchange. What the private key
 * signs is exactly what an HMAC secret signs; the signature is Base64 (standard alphabet, padded),
 * percent-encoded as the `signature` query value by the caller. No message here repeats any part
 * of the key.
 */

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/** Why a Private Key field cannot sign, with the fix; never a part of the value. */
export interface PrivateKeyProblem {
	problem: string;
	fix: string;
}

const PASTE =
	'Paste the whole private key file, from -----BEGIN PRIVATE KEY----- to -----END PRIVATE KEY----- (e.g. made with: openssl genpkey -algorithm ed25519 -out private.pem)';

/**
 * The PEM as typed, its line breaks restored: a key pasted into a one-line field arrives with
 * spaces or a literal "\n" between its lines.
 */
function normalisedPem(text: string): { label: string; pem: string } | undefined {
	const block = PEM_BLOCK.exec(text.replace(/\\r\\n|\\n/g, '\n'));
	if (block === null) return undefined;
	const body = block[2].replace(/\s+/g, '');
	const lines = body.match(/.{1,64}/g) ?? [];
	const label = block[1];
	return { label, pem: `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n` };
}

const parsed = new Map<string, KeyObject>();

/** "an RSA", "an EC", "a DSA": the article as the letters are read out. */
const article = (name: string) => `${/^[AEFHILMNORSX]/.test(name) ? 'an' : 'a'} ${name}`;

/** The Ed25519 private key of the field's value, or why it cannot be one. */
export function ed25519PrivateKey(value: unknown): KeyObject | PrivateKeyProblem {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return { problem: 'is empty', fix: `${PASTE}.` };
	const cached = parsed.get(text);
	if (cached !== undefined) return cached;
	const found = normalisedPem(text);
	if (found === undefined)
		return { problem: 'is not a key in PEM format', fix: `${PASTE}, nothing else.` };
	if (/PUBLIC KEY/.test(found.label))
		return {
			problem: 'holds a public key',
			fix: `The public key is the one you upload to the exchange; the credential needs the private key of the pair. ${PASTE}.`,
		};
	if (found.label === 'OPENSSH PRIVATE KEY')
		return {
			problem: 'is in OpenSSH format (as ssh-keygen writes it), not PEM (PKCS#8)',
			fix: `Make the pair with openssl genpkey -algorithm ed25519 -out private.pem, upload its public key (openssl pkey -in private.pem -pubout) on the exchange's API Management page, then paste private.pem here.`,
		};
	if (/ENCRYPTED/.test(found.label))
		return {
			problem: 'is encrypted with a passphrase',
			fix: 'Save it without a passphrase (openssl pkey -in private.pem -out plain.pem) and paste that; n8n encrypts stored credentials itself.',
		};
	let key: KeyObject;
	try {
		key = createPrivateKey({ key: found.pem, format: 'pem' });
	} catch {
		return { problem: 'is not a readable private key', fix: `${PASTE}, unchanged.` };
	}
	if (key.asymmetricKeyType !== 'ed25519')
		return {
			problem: `is ${article(String(key.asymmetricKeyType).toUpperCase())} key, not an Ed25519 key`,
			fix: `Use the Ed25519 key pair whose public key the exchange shows for this API key, or switch Authentication to HMAC. ${PASTE}.`,
		};
	if (parsed.size >= 16) parsed.clear();
	parsed.set(text, key);
	return key;
}

/** Base64 (standard alphabet, padded) Ed25519 signature of the text's UTF-8 bytes. */
export function signEd25519(totalParams: string, privateKey: KeyObject): string {
	return cryptoSign(null, new TextEncoder().encode(totalParams), privateKey).toString('base64');
}
