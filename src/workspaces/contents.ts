/**
 * What a deleted workspace takes with it, in the delete's own transaction: its files and its
 * classifiers (with their tags), as the hosted service deletes a workspace's budgets and
 * guardrails with it, so nothing stays stored that no route could reach.
 * @module
 */
import type { Database } from '../store/db';
import type { FileService } from '../files/service';
import { deleteWorkspaceClassifiers } from '../classifiers/repository';
import { WorkspaceService } from './service';

/** The workspace service with its delete cascade wired. */
export function workspaceService(db: Database, files: Pick<FileService, 'purgeWorkspace'>): WorkspaceService {
  return new WorkspaceService(db, async (tx, ws) => {
    await files.purgeWorkspace(tx, { orgId: ws.orgId, workspaceId: ws.id });
    await deleteWorkspaceClassifiers(tx, ws.id);
  });
}
