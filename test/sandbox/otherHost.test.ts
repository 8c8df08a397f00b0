/** otherHost.ts: the second listener redirectOtherHost points to, recording what reaches it. */
import { DEMO_KEYS } from '../../sandbox';
import { rawRequest } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0, TRANSFER, move, sendTo } from './support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});

describe('redirects', () => {
	it('redirectOtherHost: the other host (another loopback address) records what a following client sends, headers included', async () => {
		sandbox().setFaults({ rules: [{ kind: 'redirectOtherHost', times: 1, path: TRANSFER }] });
		const req = master().build({ method: 'POST', path: TRANSFER, query: move });
		const r = await rawRequest(sandbox().baseUrl, req);
		expect(r.status).toBe(307);
		expect(sandbox().otherHost.url).not.toBe(sandbox().baseUrl);
		expect(r.headers.location).toBe(`${sandbox().otherHost.url}${req.url}`);
		expect(sandbox().otherHost.requests).toHaveLength(0); // a careful client stops here

		// Node's own fetch follows a cross-origin 307 and keeps the custom X-APIKEY header
		sandbox().setFaults({ rules: [{ kind: 'redirectOtherHost', times: 1, path: TRANSFER }] });
		const res = await fetch(`${sandbox().baseUrl}${req.url}`, {
			method: 'POST',
			headers: req.headers,
		});
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			success: true,
			timestamp: 1,
			clientOrderId: '',
			orderId: '1',
		});
		expect(sandbox().otherHost.requests).toHaveLength(1);
		const caught = sandbox().otherHost.requests[0];
		expect(caught.method).toBe('POST');
		expect(caught.url).toBe(req.url);
		expect(caught.headers['x-apikey']).toBe(DEMO_KEYS.master.apiKey);
		expect(sandbox().ledger.transfers).toHaveLength(0);
	});

	it('the other host answers what the test sets, and reset() clears it', async () => {
		sandbox().otherHost.setReply({ status: 201, body: '{"orderId":"42"}' });
		const a = await sendTo(`${sandbox().otherHost.url}/x`, { method: 'GET' });
		expect([a.status, a.json]).toEqual([201, { orderId: '42' }]);
		expect(sandbox().otherHost.requests.map((q) => q.url)).toEqual(['/x']);
		sandbox().reset();
		expect(sandbox().otherHost.requests).toHaveLength(0);
		expect((await sendTo(`${sandbox().otherHost.url}/x`, { method: 'GET' })).status).toBe(200);
	});
});
