import {
	encodeRfc3986,
	keyOnlyRequestOptions,
	serializeParams,
	sign,
	signQuery,
} from '../../credentials/signing';

// Vectors computed outside this code base: printf '%s' "$totalParams" | openssl dgst -sha256 -hmac "$SECRET"
const SECRET = 'lH3ELTNiFxCQTmi9pPcWWikhsjO04Yoqw3euoHUuOLC3GYBW64ZqzQsiOEHXQS76';
const QUERY =
	'symbol=ETHUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1538323200000';
const JSON_BODY =
	'[{"symbol":"BTCUSDT","side":"BUY","type":"LIMIT","quantity":"0.01","price":"50000"}]';

describe('sign', () => {
	it('signs a query string alone', () => {
		expect(sign(QUERY, SECRET)).toBe(
			'ddc368fbb232b0fe316a7ada20c343865acdf1638bd1ccaa59019d3a7a7dddcc',
		);
	});

	it('signs a body alone', () => {
		expect(sign(JSON_BODY, SECRET)).toBe(
			'71680801c83898946fc68980ebc968cff40bb782bb3ff4d681cf31aa9c967a18',
		);
	});

	it('joins query and body with no & between them (spec §5.3 rule 3)', () => {
		const query = 'symbol=ETHUSDT&side=BUY&type=LIMIT';
		const body = 'timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1538323200000';
		expect(sign(query + body, SECRET)).toBe(
			'101fd960f5977ce4ca83deb307eab49b4ceae20039e4f99896510d3e3f36e29e',
		);
		expect(sign(`${query}&${body}`, SECRET)).toBe(
			'ddc368fbb232b0fe316a7ada20c343865acdf1638bd1ccaa59019d3a7a7dddcc',
		);
	});

	it('signs the empty string (no query, no body)', () => {
		expect(sign('', SECRET)).toBe(
			'cad0bc35678bd206e2675672f45a380dd1e9ba6abe4608f7d788c3c6a1b1d244',
		);
	});

	it('writes lowercase hex', () => {
		expect(sign(QUERY, SECRET)).toMatch(/^[0-9a-f]{64}$/);
	});
});

describe('serializeParams', () => {
	it('keeps the order the parameters were given in', () => {
		expect(
			serializeParams([
				['symbol', 'ETHUSDT'],
				['side', 'BUY'],
				['type', 'LIMIT'],
				['quantity', '1'],
			]),
		).toBe('symbol=ETHUSDT&side=BUY&type=LIMIT&quantity=1');
		expect(
			serializeParams([
				['b', '2'],
				['a', '1'],
			]),
		).toBe('b=2&a=1');
	});

	it('encodes non-ASCII and reserved characters as RFC 3986 asks', () => {
		expect(encodeRfc3986("€ &=+/?!'()*~-._")).toBe(
			'%E2%82%AC%20%26%3D%2B%2F%3F%21%27%28%29%2A~-._',
		);
		expect(serializeParams([['coin', "€ &=+/?!'()*~"]])).toBe(
			'coin=%E2%82%AC%20%26%3D%2B%2F%3F%21%27%28%29%2A~',
		);
	});

	it('signs encoded text as sent', () => {
		const query = `${serializeParams([['coin', "€ &=+/?!'()*~"]])}&recvWindow=5000&timestamp=1700000000000`;
		expect(sign(query, SECRET)).toBe(
			'3f9e89b28a5b1c2c3a4d0bbf54dd2bfb2ebf6babf2086e5cc4156814329e0f3a',
		);
	});

	it('repeats the key for arrays and leaves out undefined and null', () => {
		expect(
			serializeParams([
				['id', ['1', '2']],
				['x', undefined],
				['y', null],
				['n', 0],
				['f', false],
			]),
		).toBe('id=1&id=2&n=0&f=false');
	});

	it('keeps decimal strings exactly', () => {
		expect(serializeParams([['quantity', '0.000000010000000000']])).toBe(
			'quantity=0.000000010000000000',
		);
	});
});

describe('signQuery', () => {
	it('appends recvWindow and timestamp, then the signature over query + body', () => {
		const signed = signQuery(
			'symbol=ETHUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1',
			'',
			SECRET,
			1538323200000,
			5000,
		);
		expect(signed.query).toBe(
			`${QUERY}&signature=ddc368fbb232b0fe316a7ada20c343865acdf1638bd1ccaa59019d3a7a7dddcc`,
		);
	});

	it('never signs the signature itself, and replaces an old timestamp and signature', () => {
		const first = signQuery('symbol=ETHUSDT', '', SECRET, 1000, 5000);
		const again = signQuery(first.query, '', SECRET, 2000, 5000);
		expect(again.query).toBe(
			`symbol=ETHUSDT&recvWindow=5000&timestamp=2000&signature=${sign('symbol=ETHUSDT&recvWindow=5000&timestamp=2000', SECRET)}`,
		);
		expect(again.query.match(/signature=/g)).toHaveLength(1);
		expect(again.query.match(/timestamp=/g)).toHaveLength(1);
	});

	it('keeps a recvWindow the request already carries', () => {
		const signed = signQuery('recvWindow=20000&symbol=X', '', SECRET, 1, 5000);
		expect(signed.query.startsWith('recvWindow=20000&symbol=X&timestamp=1&signature=')).toBe(true);
	});

	it('signs a body-only request as body after the stamped query', () => {
		const signed = signQuery('', JSON_BODY, SECRET, 1538323200000, 5000);
		expect(signed.signature).toBe(
			sign(`recvWindow=5000&timestamp=1538323200000${JSON_BODY}`, SECRET),
		);
	});
});

describe('keyOnlyRequestOptions (market data: the API key, no signature)', () => {
	const credentials = {
		apiKey: 'market-key',
		secretKey: SECRET,
		baseUrl: 'https://api.example.com',
		recvWindow: 5000,
	};

	it('adds the X-APIKEY header and the Base URL, and no timestamp, recvWindow or signature', () => {
		const given = {
			method: 'GET' as const,
			url: '/quote/v1/klines',
			qs: {
				symbol: 'BTCUSDT',
				interval: '1m',
				startTime: 1,
				endTime: 2,
				limit: 1000,
				site: 'MENA',
			},
		};
		const options = keyOnlyRequestOptions(given, credentials);
		expect(options).toEqual({
			method: 'GET',
			url: '/quote/v1/klines',
			baseURL: 'https://api.example.com',
			qs: {
				symbol: 'BTCUSDT',
				interval: '1m',
				startTime: 1,
				endTime: 2,
				limit: 1000,
				site: 'MENA',
			},
			headers: { 'X-APIKEY': 'market-key' },
		});
		expect(JSON.stringify(options)).not.toMatch(/timestamp|recvWindow|signature/);
		expect(JSON.stringify(options)).not.toContain(SECRET);
	});

	it('leaves the options it was given as they were', () => {
		const given = { url: '/quote/v1/depth', headers: { Accept: 'application/json' } };
		keyOnlyRequestOptions(given, credentials);
		expect(given).toEqual({ url: '/quote/v1/depth', headers: { Accept: 'application/json' } });
	});

	it('replaces an X-APIKEY header of any case, and keeps the other headers', () => {
		const options = keyOnlyRequestOptions(
			{ url: '/quote/v1/trades', headers: { 'x-apikey': 'old', Accept: 'application/json' } },
			credentials,
		);
		expect(options.headers).toEqual({ Accept: 'application/json', 'X-APIKEY': 'market-key' });
	});

	it('keeps an absolute URL or a baseURL the request already has', () => {
		expect(
			keyOnlyRequestOptions({ url: 'http://127.0.0.1:9/quote/v1/depth' }, credentials).baseURL,
		).toBeUndefined();
		expect(
			keyOnlyRequestOptions({ url: '/quote/v1/depth', baseURL: 'http://other' }, credentials)
				.baseURL,
		).toBe('http://other');
	});

	it('refuses a Base URL that is not http(s), without repeating it (it may carry a password)', () => {
		const call = () =>
			keyOnlyRequestOptions(
				{ url: '/quote/v1/depth' },
				{ ...credentials, baseUrl: 'ftp://user:pass@host' },
			);
		expect(call).toThrow("The credential's Base URL is not an http(s) address");
		expect(call).not.toThrow(/pass@host/);
	});
});
