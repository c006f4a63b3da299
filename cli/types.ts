// Response shapes of the API the CLI reads (README: API), written out here rather than taken from
// the Worker's schemas.

export type Canvas = {
  canvas_id: string
  owner_user_id: string
  title: string
  ext: string
  renderer_id: string
  visibility: 'private' | 'public'
  version: number
  size: number
  created_at: string
  updated_at: string
  expires_at: string | null
}

export type CanvasDetail = Canvas & {
  file: { file_id: string; sha256: string; size: number; mime: string }
  renderer: { renderer_id: string; name: string }
}

export type Version = { version: number; size: number; sha256: string; created_at: string }

export type Presign = {
  file_id: string
  blob_key: string
  upload_url: string
  content_type: string
  expires_in: number
  exists: boolean
  headers?: Record<string, string>
}

export type Share = {
  token: string
  canvas_id: string
  expires_at: string | null
  view_count: number
  max_views: number | null
  version: number | null
  has_password: boolean
  created_at: string
}

export type ShareMetadata = {
  canvas: {
    title: string
    ext: string
    renderer_id: string
    version: number
    size: number
    created_at: string
  }
  share: { expires_at: string | null; view_count: number; has_password: boolean }
}

export type Me = {
  user: { user_id: string; email: string }
  workspace: { workspace_id: string; name: string }
  key: { key_id: string; name: string; scopes: string[] }
}
