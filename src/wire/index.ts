/**
 * The wire schemas: one JSON Schema per request part and per answer, each a `const` object that ajv
 * compiles (src/validation/schemas.ts) and json-schema-to-ts turns into its TypeScript type, so a
 * schema and its type cannot disagree. {@link Wire} names a type by the schema's `$id`.
 * @module
 */
import type { FromSchema } from 'json-schema-to-ts';
import defs from './defs';
import defsClassifiers from './defs.classifiers';
import defsObjects from './defs.objects';
import analyticsQueryBody from './requests/analytics.query.body';
import budgetsIntervalParams from './requests/budgets.interval.params';
import budgetsUpsertBody from './requests/budgets.upsert.body';
import classifiersCreateBody from './requests/classifiers.create.body';
import classifiersRefParams from './requests/classifiers.ref.params';
import chatCreateBody from './requests/chat.create.body';
import classifiersUpdateBody from './requests/classifiers.update.body';
import dashboardSessionBody from './requests/dashboard.session.body';
import datasetsRankingsQuery from './requests/datasets.rankings.query';
import embeddingsCreateBody from './requests/embeddings.create.body';
import embeddingsModelsQuery from './requests/embeddings.models.query';
import filesListQuery from './requests/files.list.query';
import filesScopeQuery from './requests/files.scope.query';
import generationQuery from './requests/generation.query';
import keysCreateBody from './requests/keys.create.body';
import keysHashParams from './requests/keys.hash.params';
import keysListQuery from './requests/keys.list.query';
import keysUpdateBody from './requests/keys.update.body';
import membersChangeBody from './requests/members.change.body';
import messagesCreateBody from './requests/messages.create.body';
import messagesCountTokensBody from './requests/messages.count_tokens.body';
import membersListQuery from './requests/members.list.query';
import modelsEndpointsParams from './requests/models.endpoints.params';
import modelsListQuery from './requests/models.list.query';
import modelsRetrieveParams from './requests/models.retrieve.params';
import responsesCreateBody from './requests/responses.create.body';
import workspacesCreateBody from './requests/workspaces.create.body';
import workspacesDeleteQuery from './requests/workspaces.delete.query';
import workspacesListQuery from './requests/workspaces.list.query';
import workspacesRefParams from './requests/workspaces.ref.params';
import workspacesUpdateBody from './requests/workspaces.update.body';
import analyticsMetaResponse from './responses/analytics.meta.response';
import analyticsQueryResponse from './responses/analytics.query.response';
import budgetsGetResponse from './responses/budgets.get.response';
import budgetsListResponse from './responses/budgets.list.response';
import budgetsUpsertResponse from './responses/budgets.upsert.response';
import dashboardSessionResponse from './responses/dashboard.session.response';
import datasetsRankingsResponse from './responses/datasets.rankings.response';
import deletedResponse from './responses/deleted.response';
import embeddingsCreateResponse from './responses/embeddings.create.response';
import embeddingsModelsResponse from './responses/embeddings.models.response';
import generationResponse from './responses/generation.response';
import keysCreateResponse from './responses/keys.create.response';
import keysGetResponse from './responses/keys.get.response';
import keysListResponse from './responses/keys.list.response';
import membersListResponse from './responses/members.list.response';
import providersListResponse from './responses/providers.list.response';
import workspacesGetResponse from './responses/workspaces.get.response';
import workspacesListResponse from './responses/workspaces.list.response';

/** Schemas that only hold `$defs` for the others to `$ref` (`defs#/$defs/uuid`). */
export const definitionSchemas = [defs, defsClassifiers, defsObjects] as const;

/** Request schemas: `<resource>.<action>.body|query|params`, applied by `validate()`. */
export const requestSchemas = [
  analyticsQueryBody,
  budgetsIntervalParams,
  budgetsUpsertBody,
  chatCreateBody,
  classifiersCreateBody,
  classifiersRefParams,
  classifiersUpdateBody,
  dashboardSessionBody,
  datasetsRankingsQuery,
  embeddingsCreateBody,
  embeddingsModelsQuery,
  filesListQuery,
  filesScopeQuery,
  generationQuery,
  keysCreateBody,
  keysHashParams,
  keysListQuery,
  keysUpdateBody,
  membersChangeBody,
  membersListQuery,
  messagesCreateBody,
  messagesCountTokensBody,
  modelsEndpointsParams,
  modelsListQuery,
  modelsRetrieveParams,
  responsesCreateBody,
  workspacesCreateBody,
  workspacesDeleteQuery,
  workspacesListQuery,
  workspacesRefParams,
  workspacesUpdateBody,
] as const;

/** Answer schemas: `<resource>.<action>.response`, checked against real answers in the integration tests. */
export const responseSchemas = [
  analyticsMetaResponse,
  analyticsQueryResponse,
  budgetsGetResponse,
  budgetsListResponse,
  budgetsUpsertResponse,
  dashboardSessionResponse,
  datasetsRankingsResponse,
  deletedResponse,
  embeddingsCreateResponse,
  embeddingsModelsResponse,
  generationResponse,
  keysCreateResponse,
  keysGetResponse,
  keysListResponse,
  membersListResponse,
  providersListResponse,
  workspacesGetResponse,
  workspacesListResponse,
] as const;

type Schemas = [...typeof requestSchemas, ...typeof responseSchemas];
type ById = { [S in Schemas[number] as S['$id']]: S };

/** The `$id` of a request schema, e.g. `keys.create.body`. */
export type RequestSchemaId = (typeof requestSchemas)[number]['$id'];
/** The `$id` of an answer schema, e.g. `keys.list.response`. */
export type ResponseSchemaId = (typeof responseSchemas)[number]['$id'];
/** Any wire schema's `$id`. */
export type WireId = keyof ById;

type Derived = {
  [Id in WireId]: FromSchema<ById[Id], { references: [typeof defs, typeof defsClassifiers, typeof defsObjects] }>;
};

/**
 * Every wire type by schema id. An interface, not the mapped type itself: indexing it with a
 * generic id (`validated<Id>`) then stays a lookup, where the mapped type would be expanded over
 * every schema at once, past what the compiler can represent.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- see above: the interface is the point
export interface WireTypes extends Derived {}

/**
 * The TypeScript type of the values a schema accepts, after validation: properties with a
 * `default` are present (ajv's `useDefaults` fills them in).
 */
export type Wire<Id extends WireId> = WireTypes[Id];
