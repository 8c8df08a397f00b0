/**
 * The benchmarks' bare client: node:http plus the hand-written signer, nothing else. It follows
 * the same connection policy as n8n's request helper (n8n-core builds a fresh `http.Agent` with
 * default options per request: a new TCP connection per request, no keep-alive) unless
 * `keepAlive` is set, and parses the JSON body like n8n does with `json: true`.
 */
import * as http from 'node:http';

import { signRequest, type Params } from './signer';

export interface BareCredentials {
	apiKey: string;
	secret: string;
	baseUrl: string;
}

export interface BareResponse {
	status: number;
	body: unknown;
}

export class BareClient {
	private readonly host: string;
	private readonly port: number;
	private readonly sharedAgent: http.Agent | undefined;

	constructor(
		private readonly credentials: BareCredentials,
		options: { keepAlive?: boolean } = {},
	) {
		const url = new URL(credentials.baseUrl);
		this.host = url.hostname;
		this.port = Number(url.port);
		this.sharedAgent = options.keepAlive
			? new http.Agent({ keepAlive: true, maxSockets: 1 })
			: undefined;
	}

	close(): void {
		this.sharedAgent?.destroy();
	}

	/** One signed request, freshly timestamped. */
	signed(
		method: 'GET' | 'POST',
		path: string,
		params: Params,
		jsonBody?: unknown,
	): Promise<BareResponse> {
		const body = jsonBody === undefined ? '' : JSON.stringify(jsonBody);
		const { url } = signRequest(path, params, body, this.credentials.secret, Date.now());
		const headers: Record<string, string> = {
			'X-APIKEY': this.credentials.apiKey,
			Accept: 'application/json',
		};
		if (body !== '') {
			headers['Content-Type'] = 'application/json';
			headers['Content-Length'] = String(Buffer.byteLength(body));
		}
		return new Promise((resolve, reject) => {
			const request = http.request(
				{
					host: this.host,
					port: this.port,
					method,
					path: url,
					headers,
					// Same policy as n8n: a fresh agent (no keep-alive) per request.
					agent: this.sharedAgent ?? new http.Agent(),
				},
				(response) => {
					const chunks: Buffer[] = [];
					response.on('data', (chunk: Buffer) => chunks.push(chunk));
					response.on('error', reject);
					response.on('end', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						let parsed: unknown = text;
						try {
							parsed = JSON.parse(text);
						} catch {
							// leave as text
						}
						resolve({ status: response.statusCode ?? 0, body: parsed });
					});
				},
			);
			request.on('error', reject);
			if (body !== '') request.write(body);
			request.end();
		});
	}
}
