// The API's shapes, as the Worker defines them in src/schema: types only, so none of the Worker's
// code ships in the CLI, and a change to a shape that breaks the CLI fails its typecheck.

export type {
  Canvas,
  CanvasDetail,
  Comment,
  Finalized,
  Item,
  Me,
  Presign,
  PublicShare as ShareMetadata,
  Renderer,
  Readership,
  Reply,
  Review,
  Share,
  Usage,
  Version,
  VersionItemList,
  WorkspaceEntry,
  Member,
  Invite,
  CreatedInvite,
  AuditList,
  SearchList,
} from '../src/schema/responses'
export type {
  CommentAnchor,
  CreateCanvasRequest,
  CreateShareRequest,
  UpdateCanvasRequest,
  UploadRequest,
} from '../src/schema/requests'
