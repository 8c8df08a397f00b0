import { ERROR_CODES, LIMITS } from '../../../../nodes/TradingService/constants';
import {
	REJECTIONS,
	describeRejection,
	type ServiceRejection,
} from '../../../../nodes/TradingService/transport/rejections';

// What each refusal means and how to fix it: fixed vectors of code, message and HTTP status.

const refusal = (code: string, msg: string, httpStatus = 400, retryAfterMs?: number) =>
	({ code, msg, httpStatus, retryAfterMs }) satisfies ServiceRejection;

describe('describeRejection', () => {
	it("quotes the service's words and code first, then the fix", () => {
		const { message, description } = describeRejection(
			'0401',
			refusal('401', 'Insufficient asset'),
		);
		expect(message).toBe('The account balance is too low for this request');
		expect(description).toBe(
			'The service said: "Insufficient asset" (code 401). Lower the quantity or fund the account first. This request was not executed.',
		);
	});

	it('a timestamp outside the window: the measured clock offset, ahead or behind, and the Receive Window limit', () => {
		const rejection = refusal('-1021', 'Timestamp for this request is outside of the recvWindow');
		expect(describeRejection('-1021', rejection, 2500).description).toContain(
			"The service clock is 2500 ms ahead of this n8n server's clock. Sync the n8n server's clock (NTP)",
		);
		expect(describeRejection('-1021', rejection, -30000).description).toContain(
			"The service clock is 30000 ms behind this n8n server's clock.",
		);
		const unmeasured = describeRejection('-1021', rejection).description;
		expect(unmeasured).not.toContain('The service clock is');
		expect(unmeasured).toContain(`at most ${LIMITS.maxRecvWindowMs} ms`);
		expect(unmeasured).toContain(`at most ${LIMITS.futureToleranceMs} ms ahead`);
	});

	it('HTTP 418 is an IP ban whatever the code, saying how long the service asks to wait', () => {
		const ban = describeRejection('-3145', refusal('-3145', 'Too frequent', 418, 120_000));
		expect(ban.message).toBe("This server's IP address is banned by the service");
		expect(ban.description).toContain('The service asks to wait 120 s.');
		const banWithoutWait = describeRejection('0401', refusal('0401', 'Insufficient asset', 418));
		expect(banWithoutWait.message).toBe("This server's IP address is banned by the service");
		expect(banWithoutWait.description).not.toContain('asks to wait');
	});

	it('a signature problem is recognised by its code or by its message (0001 on one of the family pages)', () => {
		for (const [code, msg] of [
			['0002', 'Incorrect signature'],
			['0001', 'Signature for this request is not valid'],
		]) {
			const { message, description } = describeRejection(code, refusal(code, msg));
			expect(message).toBe('The service rejected the request signature');
			expect(description).toContain('Secret Key');
		}
	});

	it('an API key problem is recognised by its message, unless the code is a permission code', () => {
		expect(describeRejection('0001', refusal('0001', 'Invalid APIKey')).message).toBe(
			'The service did not accept the API key',
		);
		expect(describeRejection('-1002', refusal('-1002', 'API-key not authorized')).message).toBe(
			'The service could not validate the API key for this request',
		);
		expect(describeRejection('-1005', refusal('-1005', 'No permission')).message).toBe(
			'The API key is not allowed to do this',
		);
		expect(describeRejection('0104', refusal('0104', 'accountId is not allowed')).message).toBe(
			'The API key may not use this account',
		);
	});

	it('messages that depend on the service text carry it: a rejected field, refused transfer accounts', () => {
		expect(describeRejection('0001', refusal('0001', 'Required field quantity')).message).toBe(
			'The service rejected a field: Required field quantity',
		);
		const accounts = describeRejection('-1174', refusal('-1174', 'same account'));
		expect(accounts.message).toBe(
			'The service refused the accounts of this transfer: same account',
		);
		expect(accounts.description).toContain('From Account ID and To Account ID');
	});

	it('a code the table lacks: the service text and the HTTP status', () => {
		expect(describeRejection('-9999', refusal('-9999', 'Something odd', 409))).toEqual({
			message: 'The service rejected the request: Something odd',
			description:
				'The service said: "Something odd" (code -9999). HTTP status 409. This request was not executed.',
		});
	});

	it('a duplicate client order ID says this request placed nothing and to use a new ID', () => {
		const { message, description } = describeRejection(
			'-1141',
			refusal('-1141', 'Duplicate order'),
		);
		expect(message).toBe('An open order already uses this client order ID');
		expect(description).toContain('This request placed nothing. Use a new Client Order ID');
	});
});

describe('the rejection table', () => {
	it('is keyed by codes of the error table only', () => {
		const table: string[] = Object.values(ERROR_CODES);
		for (const code of Object.keys(REJECTIONS)) expect(table).toContain(code);
	});

	it('every fix ends by saying that this request was not executed', () => {
		for (const code of Object.keys(REJECTIONS)) {
			const { description } = describeRejection(code, refusal(code, 'some text'), 0);
			expect(description).toMatch(
				/(This request was not executed\.|This request placed nothing\..*)$/,
			);
		}
	});

	it('no unknown-outcome code is explained as a refusal', () => {
		for (const code of [
			ERROR_CODES.unknownError,
			ERROR_CODES.internalError,
			ERROR_CODES.executionUnknown,
			ERROR_CODES.serverTimeout,
			ERROR_CODES.orderCreateTimeout,
			ERROR_CODES.orderCancelTimeout,
		])
			expect(REJECTIONS[code]).toBeUndefined();
	});
});
