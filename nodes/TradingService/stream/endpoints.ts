import type { AnswerShape, Endpoint } from '../transport';

/**
 * The user data stream's listen keys (UAE documentation): creating one twice only leaves a key that
 * expires unused, so none is a write; they are retried like reads.
 */

const object = (what: string): AnswerShape => ({
	is: 'object',
	otherwise: `The service answered the ${what} with something other than an object`,
});

export const STREAM_ENDPOINTS = {
	createListenKey: {
		method: 'POST',
		path: '/api/v1/userDataStream',
		weight: 1,
		answer: {
			is: 'object',
			has: { listenKey: 'text' },
			otherwise: 'The service answered the listen key request without a listen key',
		},
	},
	keepListenKeyAlive: {
		method: 'PUT',
		path: '/api/v1/userDataStream',
		weight: 1,
		answer: object('keep-alive'),
	},
	deleteListenKey: {
		method: 'DELETE',
		path: '/api/v1/userDataStream',
		weight: 1,
		answer: object('listen key deletion'),
	},
} as const satisfies Record<string, Endpoint>;

/** The stream's WebSocket, on the stream host: this path, then the listen key. */
export const STREAM_SOCKET_PATH = '/api/v1/ws/';
