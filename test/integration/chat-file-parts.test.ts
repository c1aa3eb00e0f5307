/**
 * File parts on chat (issue 58 item 9): `{type: "file", file: {file_id | file_data}}`. A `file_id`
 * names a file of the caller's workspace (`/files`) and is sent inline; Anthropic gets a `document`
 * block, OpenAI-format endpoints the `file` part; endpoints without file input are no candidates,
 * and a file Anthropic cannot read leaves it out. Another workspace's file is a 404.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { createInferenceKey } from '../helpers/gateway';
import { insertWorkspace } from '../../src/workspaces/repository';

const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

let h: GatewayHarness;
let pdfId: string;
let pngId: string;
let otherKey: string;
beforeAll(async () => {
  h = await startGatewayHarness({});
  const upload = async (bytes: Buffer, filename: string) =>
    (
      await request(h.gw.app)
        .post('/api/v1/files')
        .set('Authorization', `Bearer ${h.key}`)
        .attach('file', bytes, filename)
    ).body.id as string;
  pdfId = await upload(PDF, 'report.pdf');
  pngId = await upload(PNG, 'pixel.png');
  const ws = await insertWorkspace(h.db, { id: randomUUID(), orgId: h.gw.orgId, name: 'Other', slug: 'other-ws' });
  otherKey = (await createInferenceKey(h.gw, { name: 'other ws', workspace_id: ws.id })).secret;
});
afterAll(() => h.close());
beforeEach(() => h.fleet.resetAll());

const chat = (model: string, file: Record<string, unknown>, key = h.key) =>
  request(h.gw.app)
    .post('/api/v1/chat/completions')
    .set('Authorization', `Bearer ${key}`)
    .send({
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'summarise' },
            { type: 'file', file },
          ],
        },
      ],
    });
const userContent = (slug: string) =>
  (h.fleet.fakes[slug]!.calls[0]!.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content;

test('a file_id reaches Claude as a PDF document block with the stored bytes', async () => {
  const res = await chat('anthropic/claude-sonnet-4.5', { file_id: pdfId });
  expect(res.status).toBe(200);
  expect(userContent('anthropic')).toContainEqual({
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') },
    title: 'report.pdf',
  });
});

test('a file_id reaches an OpenAI endpoint as its file part, inline', async () => {
  const res = await chat('openai/gpt-4o', { file_id: pdfId });
  expect(res.status).toBe(200);
  expect(userContent('openai')[1]).toEqual({
    type: 'file',
    file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF.toString('base64')}` },
  });
});

test('inline file_data of text reaches Claude as a text document', async () => {
  const data = `data:text/plain;base64,${Buffer.from('hello notes').toString('base64')}`;
  const res = await chat('anthropic/claude-sonnet-4.5', { filename: 'notes.txt', file_data: data });
  expect(res.status).toBe(200);
  expect(userContent('anthropic')).toContainEqual({
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: 'hello notes' },
    title: 'notes.txt',
  });
});

test("another workspace's file is a 404 and nothing is sent", async () => {
  const res = await chat('anthropic/claude-sonnet-4.5', { file_id: pdfId }, otherKey);
  expect(res.status).toBe(404);
  expect(h.fleet.fakes.anthropic!.calls).toHaveLength(0);
});

test('a model whose endpoints take no files is no candidate; a PNG file leaves Claude out with a 400', async () => {
  const noFiles = await chat('meta-llama/llama-3.3-70b-instruct', { file_id: pdfId });
  expect(noFiles.status).toBe(404);
  const png = await chat('anthropic/claude-sonnet-4.5', { file_id: pngId });
  expect(png.status).toBe(400);
  expect(JSON.stringify(png.body)).toContain('image/png');
  expect(Object.values(h.fleet.fakes).every((f) => f.calls.length === 0)).toBe(true);
});

test('a file part with neither file_data nor file_id is a 400', async () => {
  const res = await chat('openai/gpt-4o', { filename: 'x.pdf' });
  expect(res.status).toBe(400);
});
