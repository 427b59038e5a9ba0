# Issue boards and their lists through python-gitlab (GitLab's lib/api/boards.rb, group_boards.rb,
# boards_responses.rb): create, get, list, delete boards; label lists created, moved and deleted.
# GitLab 15.4's Boards::DestroyService keeps a parent's last board: its DELETE answers 204 all the same.
from support import unique


def exercise_boards(parent, labels):
    spare = parent.boards.create({"name": unique("spare")})
    board = parent.boards.create({"name": unique("board")})
    assert board.id in [b.id for b in parent.boards.list(get_all=True)]
    assert parent.boards.get(board.id).name == board.name

    first = labels.create({"name": unique("todo"), "color": "#112233"})
    second = labels.create({"name": unique("doing"), "color": "#445566"})
    todo = board.lists.create({"label_id": first.id})
    doing = board.lists.create({"label_id": second.id})
    assert [lst.label["name"] for lst in board.lists.list()] == [first.name, second.name]
    assert [todo.position, doing.position] == [0, 1]

    doing.position = 0
    doing.save()
    assert [lst.label["name"] for lst in board.lists.list()] == [second.name, first.name]
    assert board.lists.get(todo.id).position == 1

    todo.delete()
    assert [lst.id for lst in board.lists.list()] == [doing.id]

    parent.boards.delete(board.id)
    assert [b.id for b in parent.boards.list(get_all=True)] == [spare.id]
    # The last board stays.
    parent.boards.delete(spare.id)
    assert [b.id for b in parent.boards.list(get_all=True)] == [spare.id]


def test_project_boards(project):
    exercise_boards(project, project.labels)


def test_group_boards(group):
    exercise_boards(group, group.labels)


def test_group_board_lists_by_milestone_and_assignee(gl, group, user):
    group.members.create({"user_id": user.id, "access_level": 30})
    board = group.boards.create({"name": unique("board")})
    milestone = group.milestones.create({"title": unique("milestone")})
    by_milestone = board.lists.create({"milestone_id": milestone.id})
    by_assignee = board.lists.create({"assignee_id": user.id})
    lists = board.lists.list()
    assert [lst.id for lst in lists] == [by_milestone.id, by_assignee.id]
    assert lists[0].milestone["id"] == milestone.id
    assert lists[1].assignee["id"] == user.id
    board.name = "renamed"
    board.save()
    assert group.boards.get(board.id).name == "renamed"
