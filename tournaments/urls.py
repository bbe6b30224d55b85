"""Routes of the tournaments API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from tournaments import api

T = "tournaments/<id:tournament_id>"

urlpatterns = [
    path("tournaments", api.TournamentsView.as_view(), name="tournaments"),
    path(T, api.TournamentView.as_view(), name="tournament"),
    path(f"{T}/register", api.RegisterView.as_view(), name="tournament-register"),
    path(f"{T}/decline", api.DeclineView.as_view(), name="tournament-decline"),
    path(f"{T}/withdraw", api.WithdrawView.as_view(), name="tournament-withdraw"),
    path(f"{T}/entrants", api.EntrantsView.as_view(), name="tournament-entrants"),
    path(f"{T}/entrants/<str:name>", api.EntrantView.as_view(), name="tournament-entrant"),
    path(f"{T}/start", api.StartView.as_view(), name="tournament-start"),
    path(f"{T}/standings", api.StandingsView.as_view(), name="tournament-standings"),
    path(f"{T}/live", api.tournament_live, name="tournament-live"),
    path(f"{T}/rounds/<id:number>", api.RoundView.as_view(), name="tournament-round"),
    path(
        f"{T}/rounds/<id:number>/tables/<id:table>",
        api.RoundTableView.as_view(),
        name="tournament-table",
    ),
    path(
        f"{T}/rounds/<id:number>/tables/<id:table>/adjudicate",
        api.AdjudicateView.as_view(),
        name="tournament-table-adjudicate",
    ),
    path(
        f"{T}/rounds/<id:number>/tables/<str:code>/result",
        api.TableResultView.as_view(),
        name="tournament-table-result",
    ),
    path(
        f"{T}/rounds/<id:number>/tables/<str:code>/result/confirm",
        api.TableResultConfirmView.as_view(),
        name="tournament-table-result-confirm",
    ),
    path(f"{T}/forbidden-pairs", api.ForbiddenPairsView.as_view(), name="tournament-forbidden"),
    path(
        f"{T}/forbidden-pairs/<id:pair_id>",
        api.ForbiddenPairView.as_view(),
        name="tournament-forbidden-pair",
    ),
    path(f"{T}/organisers", api.OrganisersView.as_view(), name="tournament-organisers"),
    path(
        f"{T}/organisers/<str:username>",
        api.OrganiserView.as_view(),
        name="tournament-organiser",
    ),
    path(f"{T}/audit", api.AuditView.as_view(), name="tournament-audit"),
]
