"""Contains all the data models used in inputs/outputs"""

from .action_dto import ActionDto
from .audit_entry_dto import AuditEntryDto
from .audit_list_response import AuditListResponse
from .batch_edge_request import BatchEdgeRequest
from .batch_node_request import BatchNodeRequest
from .batch_node_written import BatchNodeWritten
from .batch_request import BatchRequest
from .batch_write_response import BatchWriteResponse
from .caller_response import CallerResponse
from .change_dto import ChangeDto
from .check_response import CheckResponse
from .conflict_dto import ConflictDto
from .conflict_hit_dto import ConflictHitDto
from .conflict_list_response import ConflictListResponse
from .conflict_stats_response import ConflictStatsResponse
from .conflict_stats_response_by_type import ConflictStatsResponseByType
from .create_conflict_request import CreateConflictRequest
from .create_edge_request import CreateEdgeRequest
from .create_key_request import CreateKeyRequest
from .create_node_request import CreateNodeRequest
from .created_key_response import CreatedKeyResponse
from .current_resolution import CurrentResolution
from .detection_dto import DetectionDto
from .edge_dto import EdgeDto
from .edge_list_response import EdgeListResponse
from .event_data import EventData
from .evidence_dto import EvidenceDto
from .field_error_dto import FieldErrorDto
from .health_response import HealthResponse
from .history_entry_dto import HistoryEntryDto
from .history_response import HistoryResponse
from .key_dto import KeyDto
from .key_list_response import KeyListResponse
from .node_dto import NodeDto
from .node_list_response import NodeListResponse
from .node_restated_response import NodeRestatedResponse
from .node_state_dto import NodeStateDto
from .node_version_dto import NodeVersionDto
from .node_write_response import NodeWriteResponse
from .patch_node_request import PatchNodeRequest
from .policy_list_response import PolicyListResponse
from .policy_mark_dto import PolicyMarkDto
from .policy_match_dto import PolicyMatchDto
from .policy_rule_dto import PolicyRuleDto
from .problem import Problem
from .provenance_dto import ProvenanceDto
from .provenance_method_dto import ProvenanceMethodDto
from .recall import Recall
from .recall_conflict import RecallConflict
from .recommendation_dto import RecommendationDto
from .replacement_dto import ReplacementDto
from .report import Report
from .report_conflict import ReportConflict
from .report_list_response import ReportListResponse
from .report_source import ReportSource
from .resolve_body import ResolveBody
from .resolve_request import ResolveRequest
from .resolve_response import ResolveResponse
from .revert_body import RevertBody
from .revert_response import RevertResponse
from .source_dto import SourceDto
from .source_list_response import SourceListResponse
from .sweep_dto import SweepDto
from .sweep_list_response import SweepListResponse
from .sweep_request import SweepRequest
from .timeline_entry_dto import TimelineEntryDto
from .timeline_response import TimelineResponse
from .topic_check_request import TopicCheckRequest
from .version_list_response import VersionListResponse
from .wake_conflict import WakeConflict
from .wake_response import WakeResponse
from .wake_side import WakeSide

__all__ = (
    "ActionDto",
    "AuditEntryDto",
    "AuditListResponse",
    "BatchEdgeRequest",
    "BatchNodeRequest",
    "BatchNodeWritten",
    "BatchRequest",
    "BatchWriteResponse",
    "CallerResponse",
    "ChangeDto",
    "CheckResponse",
    "ConflictDto",
    "ConflictHitDto",
    "ConflictListResponse",
    "ConflictStatsResponse",
    "ConflictStatsResponseByType",
    "CreateConflictRequest",
    "CreateEdgeRequest",
    "CreateKeyRequest",
    "CreateNodeRequest",
    "CreatedKeyResponse",
    "CurrentResolution",
    "DetectionDto",
    "EdgeDto",
    "EdgeListResponse",
    "EventData",
    "EvidenceDto",
    "FieldErrorDto",
    "HealthResponse",
    "HistoryEntryDto",
    "HistoryResponse",
    "KeyDto",
    "KeyListResponse",
    "NodeDto",
    "NodeListResponse",
    "NodeRestatedResponse",
    "NodeStateDto",
    "NodeVersionDto",
    "NodeWriteResponse",
    "PatchNodeRequest",
    "PolicyListResponse",
    "PolicyMarkDto",
    "PolicyMatchDto",
    "PolicyRuleDto",
    "Problem",
    "ProvenanceDto",
    "ProvenanceMethodDto",
    "Recall",
    "RecallConflict",
    "RecommendationDto",
    "ReplacementDto",
    "Report",
    "ReportConflict",
    "ReportListResponse",
    "ReportSource",
    "ResolveBody",
    "ResolveRequest",
    "ResolveResponse",
    "RevertBody",
    "RevertResponse",
    "SourceDto",
    "SourceListResponse",
    "SweepDto",
    "SweepListResponse",
    "SweepRequest",
    "TimelineEntryDto",
    "TimelineResponse",
    "TopicCheckRequest",
    "VersionListResponse",
    "WakeConflict",
    "WakeResponse",
    "WakeSide",
)
